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
// Keys: "<ns>/<name>" of ReplicaSets. Thread-safety: as Controller (one worker); the
// expectations are guarded for the informer threads.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/controller.h"

namespace etna::controllers {

using Json = nlohmann::json;

class ReplicaSetController : public Controller {
 public:
  explicit ReplicaSetController(ControllerOptions options);
  ~ReplicaSetController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // The pods created or deleted by the last scale of a ReplicaSet, until the cache shows them.
  struct Expectations {
    std::vector<std::string> created, deleted;
    TimeMs since = 0;
  };
  // Enqueues the ReplicaSet that controls `pod`, or, for an orphan, every ReplicaSet of its
  // namespace whose selector matches it.
  void OnPod(const Json& pod);
  // Whether the cache shows every pod the last scale of `key` created and deleted (or they
  // are too old to wait for).
  bool ExpectationsMet(const std::string& key, const std::string& ns);
  Status WriteStatus(const Json& rs, const std::vector<Json>& pods, const std::string& failure);

  client::Informer* replica_sets_;
  client::Informer* pods_;
  std::mutex mu_;
  std::map<std::string, Expectations> expectations_;
};

}  // namespace etna::controllers
