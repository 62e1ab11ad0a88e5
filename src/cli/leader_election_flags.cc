#include "cli/leader_election_flags.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "cli/flags.h"

namespace etna::cli {

Command WithLeaderElectionFlags(const std::string& default_resource_name, Command command) {
  const std::vector<Flag> flags = {
      {"leader-elect", 0, "BOOL",
       "hold a coordination.k8s.io Lease and act only while holding it, so that several "
       "copies can run with one acting (docs/ha.md)",
       "true"},
      {"leader-elect-lease-duration", 0, "DURATION",
       "how long a standby waits, after it last saw the Lease renewed, before taking it", "15s"},
      {"leader-elect-renew-deadline", 0, "DURATION",
       "how long the leader keeps acting without a successful renewal", "10s"},
      {"leader-elect-retry-period", 0, "DURATION", "how often to try to take or renew the Lease",
       "2s"},
      {"leader-elect-resource-name", 0, "NAME", "the Lease's name", default_resource_name},
      {"leader-elect-resource-namespace", 0, "NAMESPACE", "the Lease's namespace", "kube-system"},
  };
  command.flags.insert(command.flags.end(), flags.begin(), flags.end());
  return command;
}

Result<std::optional<client::LeaderElectionOptions>> ParseLeaderElectionFlags(
    const Invocation& inv) {
  auto on = ParseBoolFlag(inv.Get("leader-elect"));
  if (!on.ok()) return on.status().WithContext("--leader-elect");
  if (!*on) {
    for (const char* flag :
         {"leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-retry-period",
          "leader-elect-resource-name", "leader-elect-resource-namespace"}) {
      if (inv.Has(flag)) {
        return Status::InvalidArgument(fmt::format("--{} needs --leader-elect=true", flag));
      }
    }
    return std::optional<client::LeaderElectionOptions>();
  }
  client::LeaderElectionOptions o;
  o.lease_name = inv.Get("leader-elect-resource-name");
  o.lease_namespace = inv.Get("leader-elect-resource-namespace");
  o.identity = client::DefaultLeaderIdentity();
  for (auto [flag, field] : {std::pair{"leader-elect-lease-duration", &o.lease_duration},
                             std::pair{"leader-elect-renew-deadline", &o.renew_deadline},
                             std::pair{"leader-elect-retry-period", &o.retry_period}}) {
    auto d = ParseDuration(inv.Get(flag));
    if (!d.ok()) return d.status().WithContext(std::string("--") + flag);
    *field = *d;
  }
  ETNA_RETURN_IF_ERROR(client::ValidateLeaderElection(o));
  return std::optional<client::LeaderElectionOptions>(std::move(o));
}

DaemonLeadership::DaemonLeadership(const char* daemon, client::LeaderElectionOptions options,
                                   const client::TransportFactory& transports,
                                   metrics::Registry* registry, std::function<void()> on_started,
                                   std::function<void()> on_stopped)
    : daemon_(daemon),
      transport_(transports()),
      rest_(transport_.get()),
      elector_(&rest_, std::move(options), &clock_),
      status_(registry->Gauge("leader_election_master_status",
                              "1 while this process holds its leader-election Lease, else 0",
                              {"name"})) {
  const std::string name = elector_.options().lease_name;
  status_.Set({name}, 0);
  thread_ = std::thread([this, name, on_started = std::move(on_started),
                         on_stopped = std::move(on_stopped)] {
    const bool stopped = elector_.Run(
        [&] {
          status_.Set({name}, 1);
          std::printf("%s: leading (Lease %s/%s, identity %s)\n", daemon_.c_str(),
                      elector_.options().lease_namespace.c_str(), name.c_str(),
                      elector_.options().identity.c_str());
          std::fflush(stdout);
          on_started();
        },
        [&] {
          on_stopped();
          status_.Set({name}, 0);
          if (!stopping_) {
            std::fprintf(stderr,
                         "%s: no renewal of the Lease %s/%s within the renew deadline: "
                         "stopped acting\n",
                         daemon_.c_str(), elector_.options().lease_namespace.c_str(), name.c_str());
          }
        });
    if (!stopped) {
      // Lost: acting has stopped; end the process through its own stop path (exit code 1).
      lost_ = true;
      std::fprintf(stderr, "%s: lost the Lease %s/%s; exiting\n", daemon_.c_str(),
                   elector_.options().lease_namespace.c_str(), name.c_str());
      kill(getpid(), SIGTERM);
    }
  });
}

DaemonLeadership::~DaemonLeadership() {
  stopping_ = true;
  elector_.Stop();
  if (thread_.joinable()) thread_.join();
}

std::string DaemonLeadership::Describe() const {
  if (elector_.Leading()) {
    return fmt::format("leading (Lease {}/{})", elector_.options().lease_namespace,
                       elector_.options().lease_name);
  }
  const std::string holder = elector_.Holder();
  return fmt::format("standby (leader: {})", holder.empty() ? "none yet" : holder);
}

}  // namespace etna::cli
