// ReplicaSetController: Kubernetes' replicaset controller (apps/v1).
//  - Keeps spec.replicas active pods (not terminal, not being deleted) of the ReplicaSet's
//    template: creates the missing ones (generateName "<rs>-", the ReplicaSet as controlling
//    owner) and deletes the extra ones in Kubernetes' order (replica_set_pods.h).
//  - Adopts the orphan pods of its namespace that its selector matches, and releases the pods it
//    owns that its selector no longer matches.
//  - Until the pods it created or deleted show in the informer's cache (client-go's
//    expectations), it does not create or delete again, so a slow watch never doubles a scale-up.
//  - status: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas (ready for
//    minReadySeconds; re-checked when the next pod comes due), observedGeneration, and a
//    ReplicaFailure condition while pod creation fails.
//  - Events: SuccessfulCreate, SuccessfulDelete ("Created pod: web-5d4b-x2k9q") and FailedCreate.
// Keys: "<ns>/<name>" of ReplicaSets. Thread-safety: as Controller (one worker).
#pragma once

#include <string>
#include <vector>

#include "controllers/controller.h"
#include "controllers/expectations.h"

namespace etna::controllers {

using Json = nlohmann::json;

class ReplicaSetController : public Controller {
 public:
  explicit ReplicaSetController(ControllerOptions options);
  ~ReplicaSetController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // Enqueues the ReplicaSet that controls `pod`, or, for an orphan, every ReplicaSet of its
  // namespace whose selector matches it.
  void OnPod(const Json& pod);
  Status WriteStatus(const Json& rs, const std::vector<Json>& pods, const std::string& failure);

  client::Informer* replica_sets_;
  client::Informer* pods_;
  PodExpectations expectations_;  // of the last scale of each ReplicaSet
};

}  // namespace etna::controllers
