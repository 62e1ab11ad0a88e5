#include "controllers/manager.h"

#include <fmt/format.h>

#include "controllers/batch_job_controller.h"
#include "controllers/cluster_role_aggregation_controller.h"
#include "controllers/cron_job_controller.h"
#include "controllers/daemon_set_controller.h"
#include "controllers/deployment_controller.h"
#include "controllers/endpoints_controller.h"
#include "controllers/hpa_controller.h"
#include "controllers/job_controller.h"
#include "controllers/jobflow_controller.h"
#include "controllers/jobtemplate_controller.h"
#include "controllers/node_controller.h"
#include "controllers/podgroup_controller.h"
#include "controllers/queue_controller.h"
#include "controllers/replica_set_controller.h"
#include "controllers/scaled_object_controller.h"
#include "controllers/scheduler_names_controller.h"

namespace etna::controllers {

const std::vector<std::string>& ControllerManager::AllControllers() {
  static const std::vector<std::string> kAll = {"job",
                                                "queue",
                                                "podgroup",
                                                "node",
                                                "replicaset",
                                                "deployment",
                                                "daemonset",
                                                "batch-job",
                                                "cronjob",
                                                "volcano-cronjob",
                                                "hpa",
                                                "keda",
                                                "jobflow",
                                                "jobtemplate",
                                                "endpoints",
                                                "scheduler-names",
                                                "clusterrole-aggregation"};
  return kAll;
}

ControllerManager::ControllerManager(ControllerManagerOptions options)
    : options_(std::move(options)),
      metrics_(options_.metrics ? options_.metrics : &own_registry_) {}

ControllerManager::~ControllerManager() { Stop(); }

Status ControllerManager::ValidateOptions() const {
  const auto& all = AllControllers();
  for (const std::string& name : options_.controllers) {
    if (std::find(all.begin(), all.end(), name) == all.end()) {
      return Status::InvalidArgument(fmt::format(
          "controllers: unknown controller \"{}\" (known: {})", name, fmt::join(all, ", ")));
    }
  }
  if (options_.job_workers < 1) {
    return Status::InvalidArgument(
        fmt::format("controllers: --worker-threads: {} is not >= 1", options_.job_workers));
  }
  if (!options_.factory) return Status::InvalidArgument("controllers: no transport factory");
  return Status::Ok();
}

Status ControllerManager::CreateControllers() {
  if (!controllers_.empty()) return Status::Ok();  // made by WarmUp before Start
  ETNA_RETURN_IF_ERROR(ValidateOptions());
  // Kept if made before: controllers already made hold pointers to its informers.
  if (!informers_) informers_ = std::make_unique<SharedInformers>(options_.factory);
  ControllerOptions o;
  o.factory = options_.factory;
  o.informers = informers_.get();
  o.clock = options_.clock;
  o.resync_period = options_.resync_period;
  o.metrics = &metrics_;
  auto wanted = [&](const std::string& name) {
    return options_.controllers.empty() || options_.controllers.count(name);
  };
  if (wanted("job")) {
    ControllerOptions job = o;
    job.workers = options_.job_workers;
    controllers_.push_back(std::make_unique<JobController>(job));
  }
  if (wanted("queue")) controllers_.push_back(std::make_unique<QueueController>(o));
  if (wanted("podgroup")) controllers_.push_back(std::make_unique<PodGroupController>(o));
  if (wanted("node")) {
    controllers_.push_back(std::make_unique<NodeLifecycleController>(o, options_.lease_grace));
  }
  if (wanted("replicaset")) controllers_.push_back(std::make_unique<ReplicaSetController>(o));
  if (wanted("deployment")) controllers_.push_back(std::make_unique<DeploymentController>(o));
  if (wanted("daemonset")) controllers_.push_back(std::make_unique<DaemonSetController>(o));
  if (wanted("batch-job")) controllers_.push_back(std::make_unique<BatchJobController>(o));
  if (wanted("cronjob")) {
    controllers_.push_back(std::make_unique<CronJobController>(o, BatchCronJobs()));
  }
  if (wanted("volcano-cronjob")) {
    controllers_.push_back(std::make_unique<CronJobController>(o, VolcanoCronJobs()));
  }
  if (wanted("hpa")) {
    controllers_.push_back(
        std::make_unique<HorizontalPodAutoscalerController>(o, options_.hpa_sync_period));
  }
  if (wanted("keda")) controllers_.push_back(std::make_unique<ScaledObjectController>(o));
  if (wanted("jobflow")) controllers_.push_back(std::make_unique<JobFlowController>(o));
  if (wanted("jobtemplate")) controllers_.push_back(std::make_unique<JobTemplateController>(o));
  if (wanted("endpoints")) controllers_.push_back(std::make_unique<EndpointsController>(o));
  if (wanted("scheduler-names")) {
    controllers_.push_back(std::make_unique<SchedulerNamesController>(o));
  }
  if (wanted("clusterrole-aggregation")) {
    controllers_.push_back(std::make_unique<ClusterRoleAggregationController>(o));
  }
  return Status::Ok();
}

Status ControllerManager::WarmUp(std::chrono::milliseconds sync_timeout) {
  if (warm_) return Status::Ok();
  ETNA_RETURN_IF_ERROR(CreateControllers());
  std::vector<std::string> unsynced;
  for (auto& c : controllers_) {
    if (!c->StartInformers(sync_timeout)) unsynced.push_back(c->name());
  }
  if (!unsynced.empty()) {
    return Status::Unavailable(fmt::format("controllers: {} could not list from the API server",
                                           fmt::join(unsynced, ", ")));
  }
  warm_ = true;
  return Status::Ok();
}

Status ControllerManager::Start(std::chrono::milliseconds sync_timeout) {
  Status warmed = WarmUp(sync_timeout);
  if (!warmed.ok() && controllers_.empty()) return warmed;  // nothing made: an invalid option
  for (auto& c : controllers_) c->StartWorkers();           // unsynced ones keep trying, as before
  if (!warmed.ok()) return warmed;
  ready_ = true;
  return Status::Ok();
}

void ControllerManager::Stop() {
  ready_ = false;
  for (auto& c : controllers_) c->Stop();
  if (informers_) informers_->Stop();
}

bool ControllerManager::SyncUntilIdle() {
  std::vector<Controller*> all;
  for (auto& c : controllers_) all.push_back(c.get());
  return controllers::SyncUntilIdle(all);
}

bool ControllerManager::Idle() {
  for (auto& c : controllers_) {
    if (!c->Idle()) return false;
  }
  return true;
}

}  // namespace etna::controllers
