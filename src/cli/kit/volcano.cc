#include "cli/kit/volcano.h"

#include <fmt/format.h>

#include <random>

#include "api/types/queue.h"
#include "api/types/well_known.h"
#include "cli/kit/objects.h"
#include "common/strings.h"

namespace etna::cli {

using nlohmann::json;

namespace {

std::string RandomSuffix() {
  static const char kChars[] = "bcdfghjklmnpqrstvwxz2456789";
  std::random_device rd;
  std::string s;
  for (int i = 0; i < 5; ++i) s += kChars[rd() % (sizeof(kChars) - 1)];
  return s;
}

}  // namespace

Result<std::string> CreateBusCommand(Api* api, const std::string& ns, const std::string& action,
                                     const json& target) {
  const json& meta = target["metadata"];
  std::string target_name = meta.value("name", "");
  json ref = {{"apiVersion", target.value("apiVersion", "")},
              {"kind", target.value("kind", "")},
              {"name", target_name},
              {"uid", meta.value("uid", "")},
              {"controller", true},
              {"blockOwnerDeletion", true}};
  std::string name = fmt::format("{}-{}-{}", target_name, Lower(action), RandomSuffix());
  json command = {{"apiVersion", "bus.volcano.sh/v1alpha1"},
                  {"kind", "Command"},
                  {"metadata", {{"name", name}, {"namespace", ns}}},
                  {"action", action},
                  {"target", ref}};
  // An owner reference only where the target lives in the Command's namespace (a Job); a
  // cluster-scoped Queue would otherwise be its owner across scopes.
  if (!meta.value("namespace", "").empty()) {
    command["metadata"]["ownerReferences"] = json::array({ref});
  }
  const ResourceInfo* info = FindResource("commands.bus.volcano.sh");
  if (info == nullptr) return Status::Internal("error: the API has no bus.volcano.sh Command");
  auto created = api->Call("POST", ResourcePath(*info, ns), &command);
  if (!created.ok()) return created.status();
  return name;
}

Result<std::vector<json>> JobPodGroups(Api* api, const json& job) {
  const ResourceInfo* info = FindResource("podgroups.scheduling.volcano.sh");
  auto list = api->Get(ResourcePath(*info, job["metadata"].value("namespace", "")));
  if (!list.ok()) return list.status();
  return api::types::JobPodGroups(job, (*list)["items"].get<std::vector<json>>());
}

}  // namespace etna::cli
