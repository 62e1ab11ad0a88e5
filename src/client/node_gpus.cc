#include "client/node_gpus.h"

#include <fmt/format.h>

namespace etna::client {

using nlohmann::json;

std::string EncodeNodeGpus(const std::vector<NodeGpu>& gpus) {
  json out = json::array();
  for (const NodeGpu& g : gpus) {
    json mig = json::array();
    for (const NodeMigInstance& m : g.mig) mig.push_back({{"profile", m.profile}, {"id", m.id}});
    out.push_back({{"index", g.index},
                   {"uuid", g.uuid},
                   {"model", g.model},
                   {"memoryMiB", g.memory_mib},
                   {"healthy", g.healthy},
                   {"numa", g.numa},
                   {"nvlinkDomain", g.nvlink_domain},
                   {"pcieSwitch", g.pcie_switch},
                   {"mig", std::move(mig)}});
  }
  return out.dump();
}

namespace {

template <typename T>
Status Read(const json& obj, const char* field, const std::string& where, T* out) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) return Status::Ok();  // keeps the default
  try {
    *out = it->get<T>();
  } catch (const json::exception&) {
    return Status::InvalidArgument(fmt::format("{}.{}: wrong type", where, field));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<NodeGpu>> DecodeNodeGpus(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_array()) {
    return Status::InvalidArgument("etna.io/gpus: must be a JSON list of devices");
  }
  std::vector<NodeGpu> gpus;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& d = doc[i];
    std::string where = fmt::format("etna.io/gpus[{}]", i);
    if (!d.is_object()) return Status::InvalidArgument(where + ": must be an object");
    NodeGpu g;
    g.index = static_cast<int32_t>(i);
    for (Status s : {Read(d, "index", where, &g.index), Read(d, "uuid", where, &g.uuid),
                     Read(d, "model", where, &g.model), Read(d, "memoryMiB", where, &g.memory_mib),
                     Read(d, "healthy", where, &g.healthy), Read(d, "numa", where, &g.numa),
                     Read(d, "nvlinkDomain", where, &g.nvlink_domain),
                     Read(d, "pcieSwitch", where, &g.pcie_switch)}) {
      if (!s.ok()) return s;
    }
    if (auto it = d.find("mig"); it != d.end() && !it->is_null()) {
      if (!it->is_array()) return Status::InvalidArgument(where + ".mig: must be a list");
      for (size_t k = 0; k < it->size(); ++k) {
        std::string mwhere = fmt::format("{}.mig[{}]", where, k);
        if (!(*it)[k].is_object()) return Status::InvalidArgument(mwhere + ": must be an object");
        NodeMigInstance m;
        for (Status s :
             {Read((*it)[k], "profile", mwhere, &m.profile), Read((*it)[k], "id", mwhere, &m.id)}) {
          if (!s.ok()) return s;
        }
        g.mig.push_back(std::move(m));
      }
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace etna::client
