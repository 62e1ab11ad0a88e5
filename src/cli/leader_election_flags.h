// Leader election for `etna scheduler` and `etna controllers`: kube-scheduler's --leader-elect
// flags and defaults, and DaemonLeadership, which runs a client::LeaderElector on its own
// thread for a daemon, keeps leader_election_master_status (Kubernetes' gauge) and says who
// leads for /readyz. Losing the Lease stops the daemon's acting first, then ends the process
// with exit code 1, as kube-scheduler does: a supervisor starts it again as a standby.
// Thread-safety: Describe() from any thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/kit/command.h"
#include "client/leader_election.h"
#include "client/rest.h"
#include "client/transport.h"
#include "common/metrics.h"

namespace etna::cli {

// `command` with the --leader-elect* flags added, the Lease named `default_resource_name` in
// kube-system by default.
Command WithLeaderElectionFlags(const std::string& default_resource_name, Command command);

// The flags as options; nullopt with --leader-elect=false. Errors name the flag.
Result<std::optional<client::LeaderElectionOptions>> ParseLeaderElectionFlags(
    const Invocation& inv);

class DaemonLeadership {
 public:
  // Starts campaigning. on_started runs when this process takes the Lease; on_stopped when it
  // loses it or stops, and must return only once the daemon has stopped acting.
  DaemonLeadership(const char* daemon, client::LeaderElectionOptions options,
                   const client::TransportFactory& transports, metrics::Registry* registry,
                   std::function<void()> on_started, std::function<void()> on_stopped);
  // Stops campaigning (on_stopped and a release when leading).
  ~DaemonLeadership();

  // "leading (Lease kube-system/etna-scheduler)" or "standby (leader: ID)".
  std::string Describe() const;
  bool leading() const { return elector_.Leading(); }
  // True once the Lease was lost (the process is ending with exit code 1).
  bool lost() const { return lost_; }

 private:
  const std::string daemon_;
  std::unique_ptr<client::Transport> transport_;
  client::RestClient rest_;
  SystemClock clock_;
  client::LeaderElector elector_;
  metrics::GaugeFamily& status_;
  std::atomic<bool> lost_{false};
  std::atomic<bool> stopping_{false};  // the destructor runs: stopping is not losing
  std::thread thread_;
};

}  // namespace etna::cli
