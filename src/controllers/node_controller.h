// NodeLifecycleController: nodes whose agent stopped renewing its Lease, and drained nodes.
//  - Lost: a node whose Lease (kube-node-lease/<node>) was not renewed within
//    leaseDurationSeconds + grace (counted from when this controller saw the last renewal, on
//    its own clock, not from the renewTime the agent wrote) gets Ready=Unknown (reason
//    NodeStatusUnknown) and the taint node.kubernetes.io/unreachable:NoSchedule; its pods are set
//    Failed with reason NodeLost (status patch) and then deleted with gracePeriodSeconds 0, so the
//    job controller applies the jobs' PodFailed policies. When the lease is renewed again the taint
//    is removed (the agent sets Ready). A node that never had a Lease is left alone.
//  - Drain: the annotation etna.io/drain on a node (its value is the reason) cordons it
//    (spec.unschedulable, taint node.kubernetes.io/unschedulable:NoSchedule), evicts its pods
//    gracefully, and records the reason in the annotation etna.io/drained-reason; removing
//    etna.io/drain uncordons a node this controller cordoned.
// Keys: "/<node>". Thread-safety: as Controller.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "controllers/controller.h"

namespace etna::controllers {

inline constexpr char kDrainAnnotation[] = "etna.io/drain";
inline constexpr char kDrainedReasonAnnotation[] = "etna.io/drained-reason";
inline constexpr char kUnreachableTaint[] = "node.kubernetes.io/unreachable";
inline constexpr char kUnschedulableTaint[] = "node.kubernetes.io/unschedulable";

class NodeLifecycleController : public Controller {
 public:
  NodeLifecycleController(ControllerOptions options, std::chrono::milliseconds lease_grace);
  // Stops the informers before this class's members go (their handlers use them).
  ~NodeLifecycleController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  Status MarkLost(const nlohmann::json& node);
  Status FailPods(const std::string& node);
  Status Drain(const nlohmann::json& node);
  Status SetTaint(const nlohmann::json& node, const std::string& taint, bool present,
                  nlohmann::json extra_spec = nlohmann::json::object());

  std::chrono::milliseconds lease_grace_;
  // By node: the Lease's last renewTime and when this controller first saw it.
  struct Observed {
    std::string renew_time;
    TimeMs at_ms = 0;
  };
  std::mutex observed_mu_;
  std::map<std::string, Observed> observed_;
  client::Informer* nodes_;
  client::Informer* leases_;
  client::Informer* pods_;
};

}  // namespace etna::controllers
