// DeploymentController: Kubernetes' deployment controller (apps/v1).
//  - Owns ReplicaSets named "<deployment>-<pod-template-hash>" (adopting orphans its selector
//    matches): the one whose template equals the Deployment's (but for the hash label) is the
//    new one, made when missing with the next revision; bringing an old template back
//    (`kubectl rollout undo`) makes its ReplicaSet the new one again, at the next revision.
//  - RollingUpdate: scales the new ReplicaSet up within replicas + maxSurge and the old ones
//    down while replicas - maxUnavailable stay available (deployment_rollout.h). Recreate:
//    scales the old ones to zero, waits for their pods to end, then scales the new one up.
//  - A change of spec.replicas during a rollout is shared out in proportion; a paused
//    Deployment only scales. Old ReplicaSets beyond revisionHistoryLimit are deleted.
//  - status: replicas, updatedReplicas, readyReplicas, availableReplicas,
//    unavailableReplicas, observedGeneration, collisionCount, and the Available and Progressing
//    conditions (ProgressDeadlineExceeded after progressDeadlineSeconds without progress), which
//    `kubectl rollout status` reads.
//  - Events: ScalingReplicaSet at each resize of a ReplicaSet, as Kubernetes writes them.
// Keys: "<ns>/<name>" of Deployments. Thread-safety: as Controller (one worker).
#pragma once

#include <string>
#include <vector>

#include "controllers/controller.h"

namespace etna::controllers {

using Json = nlohmann::json;

class DeploymentController : public Controller {
 public:
  explicit DeploymentController(ControllerOptions options);
  ~DeploymentController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // Enqueues the Deployment that controls `rs`, or, for an orphan, every Deployment of its
  // namespace whose selector matches it.
  void OnReplicaSet(const Json& rs);
  // The ReplicaSets `deployment` controls (after adopting the orphans it matches).
  Result<std::vector<Json>> OwnedReplicaSets(const Json& deployment);
  // Makes the new ReplicaSet of `deployment`; the existing one when it is already there.
  Result<Json> CreateNewReplicaSet(const Json& deployment, const std::vector<const Json*>& old,
                                   int64_t revision);
  // Sets a ReplicaSet's spec.replicas (and the annotations that record the Deployment's
  // size); the ReplicaSet as written.
  Result<Json> ScaleReplicaSet(const Json& deployment, const Json& rs, int64_t replicas);
  // The ScalingReplicaSet Event ("Scaled up replica set web-5d4b from 1 to 3").
  void RecordScaling(const Json& deployment, const Json& rs, int64_t from, int64_t to);
  // Any pod of `old` still running or pending (Recreate waits for them to end).
  bool OldPodsRunning(const std::vector<const Json*>& old);
  Status WriteStatus(const Json& deployment, const Json* new_rs,
                     const std::vector<const Json*>& all, bool created_new);

  client::Informer* deployments_;
  client::Informer* replica_sets_;
  client::Informer* pods_;
};

}  // namespace etna::controllers
