// LeaderElector: client-go's leader election on a coordination.k8s.io/v1 Lease, with
// kube-scheduler's flags and defaults, for `etna scheduler` and `etna controllers`.
//
// One candidate holds the Lease (spec.holderIdentity) by renewing spec.renewTime every
// retry_period. Another takes it only when it has seen the Lease unchanged for a whole
// lease_duration on its own clock (so clocks need not agree). The holder stops acting once
// renew_deadline has passed since it sent its last renewal that succeeded: that renewal is
// older than any moment a standby could have started counting from, and renew_deadline is
// shorter than lease_duration, so a holder cut off from the servers stops before anyone else
// can take over. A holder that stops on request lets go (clears holderIdentity), so a standby
// takes over at once.
//
// A leader sends a renewal every retry_period, also while earlier ones are still unanswered
// (an etcd electing a new leader holds writes for seconds), so the first to get through counts.
//
// TryAcquireOrRenew is one step on a given time (tests drive it with a FakeClock); Run loops it.
// Thread-safety: Run on one thread; Leading(), Holder() and Stop() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

#include "client/rest.h"
#include "common/clock.h"

namespace etna::client {

struct LeaderElectionOptions {
  std::string lease_namespace = "kube-system";      // --leader-elect-resource-namespace
  std::string lease_name;                           // --leader-elect-resource-name
  std::string identity;                             // this candidate (host name and a unique id)
  std::chrono::milliseconds lease_duration{15000};  // --leader-elect-lease-duration
  std::chrono::milliseconds renew_deadline{10000};  // --leader-elect-renew-deadline
  std::chrono::milliseconds retry_period{2000};     // --leader-elect-retry-period
};

// Checks the durations as kube-scheduler does: lease_duration > renew_deadline >
// retry_period × 1.2 > 0. Errors name the flag.
Status ValidateLeaderElection(const LeaderElectionOptions& options);

// hostname + "_" + a random suffix, as client-go's candidates name themselves.
std::string DefaultLeaderIdentity();

class LeaderElector {
 public:
  LeaderElector(RestClient* rest, LeaderElectionOptions options, const Clock* clock);

  // One attempt at `now`: creates, takes over or renews the Lease. True when this candidate
  // holds it after the attempt.
  bool TryAcquireOrRenew(TimeMs now);
  // Whether a leader that last renewed successfully at `renewed_at` must stop acting at `now`.
  bool DeadlinePassed(TimeMs renewed_at, TimeMs now) const {
    return now - renewed_at >= options_.renew_deadline.count();
  }
  // Clears holderIdentity if this candidate still holds the Lease (best effort).
  void Release();

  // Tries every retry_period until it holds the Lease, calls on_started, then renews every
  // retry_period; when the renew deadline passes it calls on_stopped (which must stop all
  // acting before it returns) and returns false. Returns true when Stop() ended it (after
  // on_stopped and a release if it was leading).
  bool Run(const std::function<void()>& on_started, const std::function<void()>& on_stopped);
  void Stop();

  bool Leading() const { return leading_; }
  // The holder as last read ("" before the first read).
  std::string Holder() const;
  const LeaderElectionOptions& options() const { return options_; }

 private:
  // Waits retry_period or until Stop(); false when stopped.
  bool Pause();

  // Renewals that may be unanswered at once (each holds a thread and a connection).
  static constexpr size_t kMaxRenewalsInFlight = 8;

  RestClient* rest_;
  const LeaderElectionOptions options_;
  const Clock* clock_;
  const std::string path_;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::string holder_;
  // The Lease's record as last seen and when it was first seen so (this candidate's clock).
  std::string observed_record_;
  TimeMs observed_at_ = 0;
  uint64_t finished_attempts_ = 0;  // renewal attempts that returned (wakes Run)
  std::atomic<bool> leading_{false};
};

}  // namespace etna::client
