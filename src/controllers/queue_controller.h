// QueueController: Volcano's queue controller. Keeps each Queue's status.state (Open; Closing
// while PodGroups remain in a queue whose spec.state is Closing or Closed, then Closed; Unknown
// for an unexpected spec.state)
// and its PodGroup counts (pending, running, inqueue, completed, unknown), written as a JSON
// merge patch of those fields only (the scheduler writes status.allocated). Applies the
// Commands that target a Queue (OpenQueue, CloseQueue: they set spec.state, so the intent
// survives restarts) and deletes them. The counts follow PodGroup changes within kCountsDelay
// (one status write per queue per delay however many PodGroups change, as a 10,000-job burst
// would otherwise write the queue's status after every one). The counts are kept as PodGroups
// change, so a reconcile does not walk every PodGroup.
// Thread-safety: as Controller.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "controllers/controller.h"

namespace etna::controllers {

class QueueController : public Controller {
 public:
  static constexpr std::chrono::milliseconds kCountsDelay{1000};

  explicit QueueController(ControllerOptions options);
  // Stops the informers before this class's members go (their handlers use them).
  ~QueueController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // The status field a PodGroup's phase is counted in ("pending" for any phase not named).
  static const char* CountField(const std::string& phase);
  void CountPodGroup(const std::string& type, const nlohmann::json& podgroup);

  std::mutex counts_mu_;
  // Each PodGroup ("<ns>/<name>") to its queue and count field, and the counts per queue.
  std::map<std::string, std::pair<std::string, const char*>> counted_;
  std::map<std::string, std::map<std::string, int64_t>> counts_;
  client::Informer* queues_;
  client::Informer* podgroups_;
  client::Informer* commands_;
};

}  // namespace etna::controllers
