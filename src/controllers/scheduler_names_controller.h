// SchedulerNamesController: tells a user when no running scheduler serves a pod's
// schedulerName (Kubernetes defaults it to default-scheduler), instead of leaving the pod
// Pending without a word. Each etna scheduler renews a kube-system Lease whose
// etna.io/scheduler-names annotation lists the names it serves (scheduler/scheduler.h); a pod
// still unbound 15 s after its creation whose name no fresh Lease lists gets a Warning Event,
// FailedScheduling: `no running scheduler serves schedulerName "x" (running schedulers serve:
// volcano, etna, default-scheduler)`, repeated (counted) each minute while it waits.
// Keys: "<ns>/<name>" of pods. Thread-safety: as Controller (one worker).
#pragma once

#include <string>

#include "controllers/controller.h"

namespace etna::controllers {

class SchedulerNamesController : public Controller {
 public:
  explicit SchedulerNamesController(ControllerOptions options);
  ~SchedulerNamesController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  client::Informer* pods_;
  client::Informer* leases_;
};

}  // namespace etna::controllers
