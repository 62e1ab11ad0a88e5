// Volcano's job plugins (spec.plugins: name -> args) as they change a job's pods: env
// (VK_TASK_INDEX, VC_TASK_INDEX), svc (hostname/subdomain, VC_<TASK>_HOSTS and VC_<TASK>_NUM,
// the `<job>-svc` ConfigMap), pytorch (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK), tensorflow
// (TF_CONFIG) and mpi (MPI_HOST). Not done: the svc plugin's headless Service and NetworkPolicy
// (those kinds are not served) and the ConfigMap mount at /etc/volcano; the ssh plugin's Secret.
// Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace etna::controllers {

// Applies the job's plugins to pod `index` of task `task` (env on every container and init
// container, hostname/subdomain, container ports).
void ApplyJobPlugins(const nlohmann::json& job, const std::string& task, int index,
                     nlohmann::json& pod);
// The svc plugin's ConfigMap `<job>-svc` (key `<task>.host`: newline list of host names), or
// nullopt when the job has no svc plugin.
std::optional<nlohmann::json> BuildSvcConfigMap(const nlohmann::json& job);
// The svc plugin's headless Service `<job>` selecting the job's pods (Volcano's: clusterIP None,
// a placeholder port 1, publishNotReadyAddresses from --publish-not-ready-addresses), or
// nullopt when the job has no svc plugin. Its pods' "<pod>.<job>" names resolve through it.
std::optional<nlohmann::json> BuildSvcService(const nlohmann::json& job);
// The value of flag `--name=value` in `args`, else `fallback`.
std::string PluginFlag(const nlohmann::json& args, const std::string& name,
                       const std::string& fallback);

}  // namespace etna::controllers
