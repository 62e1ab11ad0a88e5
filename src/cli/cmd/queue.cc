// vcctl's queue verbs: `etna queue create|get|list|operate|delete` (-n is the queue's name, as
// in vcctl). open and close are bus Commands OpenQueue/CloseQueue that the queue controller
// carries out; update sets spec.weight.
#include "api/types/queue.h"

#include <fmt/format.h>

#include <cstdio>

#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"
#include "cli/kit/volcano.h"

namespace etna::cli {
namespace {

using nlohmann::json;

const ResourceInfo& QueueInfo() { return *FindResource("queues.scheduling.volcano.sh"); }

std::string QueueName(const Invocation& inv) {
  if (inv.Has("name")) return inv.Get("name");
  return inv.args().empty() ? "" : inv.args()[0];
}

void PrintQueues(const std::vector<json>& queues, bool with_parent) {
  TableWriter t;
  std::vector<std::string> header = {"Name", "Weight", "State"};
  if (with_parent) header.push_back("Parent");
  for (const char* h : {"Inqueue", "Pending", "Running", "Unknown", "Completed"}) {
    header.push_back(h);
  }
  t.AddRow(header);
  for (const json& q : queues) {
    const api::types::Queue view(q);
    const json& spec = q.value("spec", json::object());
    const json& status = q.value("status", json::object());
    std::vector<std::string> row = {view.name(), std::to_string(view.weight()), view.State()};
    if (with_parent)
      row.push_back(spec.value("parent", q["metadata"].value("name", "") == "root" ? "" : "root"));
    for (const char* k : {"inqueue", "pending", "running", "unknown", "completed"}) {
      row.push_back(std::to_string(status.value(k, 0)));
    }
    t.AddRow(row);
  }
  std::fputs(t.Render().c_str(), stdout);
}

int RunCreate(Invocation& inv) {
  std::string name = QueueName(inv);
  if (name.empty()) name = "test";
  std::string state = inv.Get("state");
  if (state != "Open" && state != "Closed") {
    return inv.Fail(fmt::format("error: --state must be Open or Closed, not \"{}\"", state));
  }
  int weight = std::atoi(inv.Get("weight").c_str());
  if (weight <= 0) return inv.Fail("error: --weight must be a number greater than 0");
  json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", name}}},
                {"spec", {{"weight", weight}, {"state", state}, {"reclaimable", true}}}};
  if (inv.Has("parent")) queue["spec"]["parent"] = inv.Get("parent");
  for (const char* field : {"capability", "deserved", "guarantee"}) {
    if (!inv.Has(field)) continue;
    json resources = json::object();
    std::string text = inv.Get(field);
    for (size_t start = 0; start < text.size();) {
      size_t comma = text.find(',', start);
      std::string pair = text.substr(start, comma - start);
      size_t eq = pair.find('=');
      if (eq == std::string::npos) {
        return inv.Fail(fmt::format("error: --{}: \"{}\" is not NAME=QUANTITY", field, pair));
      }
      resources[pair.substr(0, eq)] = pair.substr(eq + 1);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    queue["spec"][field] = resources;
  }
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto created = api->Call("POST", ResourcePath(QueueInfo(), ""), &queue);
  if (!created.ok()) return inv.Fail(created.status().message());
  std::printf("create queue %s successfully\n", name.c_str());
  return 0;
}

int RunGetQueue(Invocation& inv) {
  std::string name = QueueName(inv);
  if (name.empty()) return inv.UsageError("queue name must be specified (--name/-n)");
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto queue = api->Get(ResourcePath(QueueInfo(), "", name));
  if (!queue.ok()) return inv.Fail(queue.status().message());
  PrintQueues({*queue}, false);
  if (std::string note = QueueWindowNote(*queue); !note.empty()) std::printf("%s\n", note.c_str());
  return 0;
}

int RunList(Invocation& inv) {
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto list = api->Get(ResourcePath(QueueInfo(), ""));
  if (!list.ok()) return inv.Fail(list.status().message());
  std::vector<json> queues = (*list)["items"];
  if (queues.empty()) {
    std::fprintf(stderr, "No resources found\n");
    return 0;
  }
  PrintQueues(queues, true);
  return 0;
}

int RunOperate(Invocation& inv) {
  std::string name = QueueName(inv);
  if (name.empty()) return inv.UsageError("queue name must be specified (--name/-n)");
  std::string action = inv.Get("action");
  if (action != "open" && action != "close" && action != "update") {
    return inv.Fail(
        fmt::format("error: action {} invalid, valid actions are open, close and update", action));
  }
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto queue = api->Get(ResourcePath(QueueInfo(), "", name));
  if (!queue.ok()) return inv.Fail(queue.status().message());
  if (action == "update") {
    int weight = std::atoi(inv.Get("weight").c_str());
    if (weight <= 0)
      return inv.Fail("error: when updating a queue, --weight must be greater than 0");
    json patch = {{"spec", {{"weight", weight}}}};
    auto r = api->Call("PATCH", ResourcePath(QueueInfo(), "", name), &patch,
                       "application/merge-patch+json");
    if (!r.ok()) return inv.Fail(r.status().message());
    std::printf("update queue %s weight to %d successfully\n", name.c_str(), weight);
    return 0;
  }
  if (!queue->contains("apiVersion")) (*queue)["apiVersion"] = QueueInfo().GroupVersion();
  if (!queue->contains("kind")) (*queue)["kind"] = "Queue";
  auto command =
      CreateBusCommand(api, "default", action == "open" ? "OpenQueue" : "CloseQueue", *queue);
  if (!command.ok()) return inv.Fail(command.status().message());
  std::printf("%s queue %s successfully\n", action.c_str(), name.c_str());
  return 0;
}

int RunDelete(Invocation& inv) {
  std::string name = QueueName(inv);
  if (name.empty()) return inv.UsageError("queue name must be specified (--name/-n)");
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto r = api->Call("DELETE", ResourcePath(QueueInfo(), "", name));
  if (!r.ok()) return inv.Fail(r.status().message());
  std::printf("delete queue %s successfully\n", name.c_str());
  return 0;
}

Flag NameFlag() { return {"name", 'n', "NAME", "the queue's name (or give it as the argument)"}; }

}  // namespace

void AddQueueCommands(std::vector<Command>* out) {
  out->push_back({"queue create",
                  "create a queue",
                  "etna queue create -n NAME [-w WEIGHT] [-S STATE]",
                  "",
                  {{"name", 'n', "NAME", "the queue's name", "test"},
                   {"weight", 'w', "N", "the queue's weight", "1"},
                   {"state", 'S', "STATE", "Open or Closed", "Open"},
                   {"parent", 0, "QUEUE", "the parent queue (hierarchical queues)"},
                   {"capability", 0, "LIST", "upper limit, e.g. nvidia.com/gpu=8,cpu=64"},
                   {"deserved", 0, "LIST", "deserved share, e.g. nvidia.com/gpu=4"},
                   {"guarantee", 0, "LIST", "guaranteed resources, e.g. nvidia.com/gpu=2"}},
                  true,
                  RunCreate});
  out->push_back({"queue get",
                  "show one queue",
                  "etna queue get -n NAME",
                  "",
                  {NameFlag()},
                  true,
                  RunGetQueue});
  out->push_back({"queue list",
                  "list queues with vcctl's columns",
                  "etna queue list",
                  "Columns: Name Weight State Parent Inqueue Pending Running Unknown Completed.",
                  {},
                  true,
                  RunList});
  out->push_back({"queue operate",
                  "open, close or re-weight a queue",
                  "etna queue operate -n NAME -a open|close|update [-w WEIGHT]",
                  "open and close create a bus.volcano.sh Command (OpenQueue, CloseQueue) for the\n"
                  "queue controller; update sets the weight (greater than 0).",
                  {NameFlag(),
                   {"action", 'a', "ACTION", "open, close or update"},
                   {"weight", 'w', "N", "the new weight, for update"}},
                  true,
                  RunOperate});
  out->push_back({"queue delete",
                  "delete a queue",
                  "etna queue delete -n NAME",
                  "",
                  {NameFlag()},
                  true,
                  RunDelete});
}

}  // namespace etna::cli
