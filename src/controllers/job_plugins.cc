#include "controllers/job_plugins.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

#include "api/types/job.h"
#include "api/types/well_known.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

struct TaskInfo {
  std::string name;
  int replicas = 0;
};

std::vector<TaskInfo> Tasks(const Json& job) {
  std::vector<TaskInfo> out;
  for (const Json& t : types::Job(job).tasks()) {
    types::JobTask task(t);
    out.push_back({task.name(), static_cast<int>(task.replicas())});
  }
  return out;
}

const TaskInfo* FindTask(const std::vector<TaskInfo>& tasks, const std::string& name) {
  for (const TaskInfo& t : tasks) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// Sets env `name` on every container and init container (replacing a same-named entry).
void SetEnv(Json& pod, const std::string& name, const std::string& value) {
  for (const char* key : {"containers", "initContainers"}) {
    if (!pod["spec"].contains(key) || !pod["spec"][key].is_array()) continue;
    for (Json& c : pod["spec"][key]) {
      if (!c.contains("env") || !c["env"].is_array()) c["env"] = Json::array();
      Json& env = c["env"];
      auto it = std::find_if(env.begin(), env.end(),
                             [&](const Json& e) { return types::String(e, {"name"}) == name; });
      Json entry = {{"name", name}, {"value", value}};
      if (it != env.end()) {
        *it = entry;
      } else {
        env.push_back(entry);
      }
    }
  }
}

// Adds container port `name`/`port` to every container that has no port of that name.
void AddPort(Json& pod, const std::string& name, int port) {
  if (!pod["spec"].contains("containers")) return;
  for (Json& c : pod["spec"]["containers"]) {
    if (!c.contains("ports") || !c["ports"].is_array()) c["ports"] = Json::array();
    bool has = std::any_of(c["ports"].begin(), c["ports"].end(), [&](const Json& p) {
      return types::String(p, {"name"}) == name || p.value("containerPort", 0) == port;
    });
    if (!has) c["ports"].push_back({{"name", name}, {"containerPort", port}, {"protocol", "TCP"}});
  }
}

std::string EnvTaskName(const std::string& task) {
  std::string out;
  for (char ch : task) out += ch == '-' ? '_' : static_cast<char>(std::toupper(ch));
  return out;
}

std::vector<std::string> Hosts(const std::string& job, const TaskInfo& task,
                               const std::string& suffix = {}) {
  std::vector<std::string> hosts;
  for (int i = 0; i < task.replicas; ++i) hosts.push_back(JobPodHost(job, task.name, i) + suffix);
  return hosts;
}

void ApplySvc(const Json& job, const std::vector<TaskInfo>& tasks, Json& pod) {
  std::string job_name = types::Job(job).name();
  pod["spec"]["hostname"] = pod["metadata"]["name"];
  pod["spec"]["subdomain"] = job_name;
  for (const TaskInfo& t : tasks) {
    SetEnv(pod, fmt::format("VC_{}_HOSTS", EnvTaskName(t.name)),
           fmt::format("{}", fmt::join(Hosts(job_name, t), ",")));
    SetEnv(pod, fmt::format("VC_{}_NUM", EnvTaskName(t.name)), std::to_string(t.replicas));
  }
}

void ApplyPytorch(const Json& job, const Json& args, const std::vector<TaskInfo>& tasks,
                  const std::string& task, int index, Json& pod) {
  std::string master = PluginFlag(args, "master", "master");
  std::string worker = PluginFlag(args, "worker", "worker");
  int port = std::atoi(PluginFlag(args, "port", "23456").c_str());
  if (task != master && task != worker) return;
  const TaskInfo* m = FindTask(tasks, master);
  if (m == nullptr) {
    std::fprintf(stderr, "job %s: pytorch plugin: no task named %s (--master); no env set\n",
                 types::Job(job).name().c_str(), master.c_str());
    return;
  }
  const TaskInfo* w = FindTask(tasks, worker);
  int world = m->replicas + (w ? w->replicas : 0);
  int rank = task == master ? index : m->replicas + index;
  SetEnv(pod, "MASTER_ADDR", JobPodHost(types::Job(job).name(), master, 0));
  SetEnv(pod, "MASTER_PORT", std::to_string(port));
  SetEnv(pod, "WORLD_SIZE", std::to_string(world));
  SetEnv(pod, "RANK", std::to_string(rank));
  AddPort(pod, "pytorchjob-port", port);
}

void ApplyTensorflow(const Json& job, const Json& args, const std::vector<TaskInfo>& tasks,
                     const std::string& task, int index, Json& pod) {
  std::string port = PluginFlag(args, "port", "2222");
  Json cluster = Json::object();
  std::string type;
  for (const char* role : {"ps", "worker", "chief", "evaluator"}) {
    std::string name = PluginFlag(args, role, role);
    if (name == task) type = role;
    const TaskInfo* t = FindTask(tasks, name);
    if (t == nullptr) continue;
    cluster[role] = Hosts(types::Job(job).name(), *t, ":" + port);
  }
  if (type.empty()) return;
  Json config = {{"cluster", cluster}, {"task", {{"type", type}, {"index", index}}}};
  SetEnv(pod, "TF_CONFIG", config.dump());
  AddPort(pod, "tfjob-port", std::atoi(port.c_str()));
}

void ApplyMpi(const Json& job, const Json& args, const std::vector<TaskInfo>& tasks,
              const std::string& task, Json& pod) {
  std::string master = PluginFlag(args, "master", "master");
  std::string worker = PluginFlag(args, "worker", "worker");
  int port = std::atoi(PluginFlag(args, "port", "22").c_str());
  if (task == master) {
    const TaskInfo* w = FindTask(tasks, worker);
    if (w)
      SetEnv(pod, "MPI_HOST", fmt::format("{}", fmt::join(Hosts(types::Job(job).name(), *w), ",")));
  }
  if (task == master || task == worker) AddPort(pod, "mpijob-port", port);
}

}  // namespace

std::string PluginFlag(const Json& args, const std::string& name, const std::string& fallback) {
  if (!args.is_array()) return fallback;
  std::string prefix = "--" + name + "=";
  for (const Json& a : args) {
    if (!a.is_string()) continue;
    const std::string& s = a.get_ref<const std::string&>();
    if (s.rfind(prefix, 0) == 0) return s.substr(prefix.size());
  }
  return fallback;
}

void ApplyJobPlugins(const Json& job, const std::string& task, int index, Json& pod) {
  Json::json_pointer p("/spec/plugins");
  if (!job.contains(p) || !job.at(p).is_object()) return;
  const Json& plugins = job.at(p);
  std::vector<TaskInfo> tasks = Tasks(job);
  if (plugins.contains("env")) {
    SetEnv(pod, "VK_TASK_INDEX", std::to_string(index));
    SetEnv(pod, "VC_TASK_INDEX", std::to_string(index));
  }
  if (plugins.contains("svc")) ApplySvc(job, tasks, pod);
  if (plugins.contains("pytorch")) ApplyPytorch(job, plugins["pytorch"], tasks, task, index, pod);
  if (plugins.contains("tensorflow")) {
    ApplyTensorflow(job, plugins["tensorflow"], tasks, task, index, pod);
  }
  if (plugins.contains("mpi")) ApplyMpi(job, plugins["mpi"], tasks, task, pod);
}

std::optional<Json> BuildSvcConfigMap(const Json& job) {
  Json::json_pointer p("/spec/plugins/svc");
  if (!job.contains(p)) return std::nullopt;
  Json data = Json::object();
  for (const TaskInfo& t : Tasks(job)) {
    data[t.name + ".host"] = fmt::format("{}", fmt::join(Hosts(types::Job(job).name(), t), "\n"));
  }
  return Json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata",
               {{"name", types::Job(job).name() + "-svc"},
                {"namespace", types::Job(job).ns()},
                {"ownerReferences", Json::array({ControllerRef(job)})}}},
              {"data", data}};
}

std::optional<Json> BuildSvcService(const Json& job) {
  Json::json_pointer p("/spec/plugins/svc");
  if (!job.contains(p)) return std::nullopt;
  types::Job view(job);
  // A Go bool flag: "--publish-not-ready-addresses" alone or "=true".
  const Json& args = job.at(p);
  bool publish_not_ready =
      PluginFlag(args, "publish-not-ready-addresses", "false") == "true" ||
      (args.is_array() &&
       std::find(args.begin(), args.end(), "--publish-not-ready-addresses") != args.end());
  return Json{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       {{"name", view.name()},
        {"namespace", view.ns()},
        {"ownerReferences", Json::array({ControllerRef(job)})}}},
      {"spec",
       {{"clusterIP", "None"},
        {"selector",
         {{api::types::kJobNameLabel, view.name()}, {api::types::kJobNamespaceLabel, view.ns()}}},
        {"publishNotReadyAddresses", publish_not_ready},
        {"ports",
         {{{"name", "placeholder-volcano"},
           {"port", 1},
           {"protocol", "TCP"},
           {"targetPort", 1}}}}}}};
}

}  // namespace etna::controllers
