// QueueController: Volcano's queue controller. Keeps each Queue's status.state (Open; Closing
// while PodGroups remain in a queue whose spec.state is Closing or Closed, then Closed; Unknown
// for an unexpected spec.state)
// and its PodGroup counts (pending, running, inqueue, completed, unknown), written as a JSON
// merge patch of those fields only (the scheduler writes status.allocated). Applies the
// Commands that target a Queue (OpenQueue, CloseQueue: they set spec.state, so the intent
// survives restarts) and deletes them. The counts follow PodGroup changes within kCountsDelay
// (one status write per queue per delay however many PodGroups change, as a 10,000-job burst
// would otherwise write the queue's status after every one).
// Thread-safety: as Controller.
#pragma once

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
  client::Informer* queues_;
  client::Informer* podgroups_;
  client::Informer* commands_;
};

}  // namespace etna::controllers
