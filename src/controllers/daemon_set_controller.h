// DaemonSetController: Kubernetes' daemonset controller (apps/v1).
//  - One pod per node that should run it (daemon_set_pods.h: node selector, required node
//    affinity, taints against the template's tolerations plus the ones every daemon pod gets);
//    a new node gets its pod, a node that no longer matches loses it, a failed pod is replaced
//    after a backoff that doubles per failure on that node (1 s up to 5 min, as Kubernetes').
//    The pod is made with spec.nodeName set (as Kubernetes did before 1.12): a node daemon never
//    waits in a queue; admission therefore refuses DaemonSets that request devices.
//  - RollingUpdate: pods of an older template (label controller-revision-hash) are replaced
//    node by node with at most maxUnavailable nodes without an available pod, or, with
//    maxSurge, the new pod starts beside the old one, which goes once the new one is available.
//    OnDelete: a pod is replaced only when deleted.
//  - status: desiredNumberScheduled, currentNumberScheduled, numberMisscheduled, numberReady,
//    updatedNumberScheduled, numberAvailable, numberUnavailable, observedGeneration.
// Keys: "<ns>/<name>" of DaemonSets. Thread-safety: as Controller (one worker).
#pragma once

#include <map>
#include <string>

#include "controllers/controller.h"

namespace etna::controllers {

class DaemonSetController : public Controller {
 public:
  explicit DaemonSetController(ControllerOptions options);
  ~DaemonSetController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  struct Backoff {
    TimeMs delay = 0;
    TimeMs until = 0;
  };
  client::Informer* daemon_sets_;
  client::Informer* nodes_;
  client::Informer* pods_;
  std::map<std::string, Backoff> backoff_;  // "<ds key>/<node>": after a failed pod
};

}  // namespace etna::controllers
