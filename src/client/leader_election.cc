#include "client/leader_election.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <random>
#include <thread>
#include <vector>

#include "common/time.h"

namespace etna::client {
namespace {

// What must change for a standby to count the holder as alive.
std::string Record(const nlohmann::json& spec) {
  return fmt::format("{}|{}|{}", spec.value("holderIdentity", std::string()),
                     spec.value("renewTime", std::string()),
                     spec.value("leaseDurationSeconds", int64_t{0}));
}

int64_t Seconds(std::chrono::milliseconds d) { return (d.count() + 999) / 1000; }

}  // namespace

Status ValidateLeaderElection(const LeaderElectionOptions& o) {
  if (o.lease_name.empty()) return Status::InvalidArgument("--leader-elect-resource-name: empty");
  if (o.lease_namespace.empty()) {
    return Status::InvalidArgument("--leader-elect-resource-namespace: empty");
  }
  if (o.retry_period.count() <= 0) {
    return Status::InvalidArgument("--leader-elect-retry-period: must be positive");
  }
  if (o.lease_duration <= o.renew_deadline) {
    return Status::InvalidArgument(fmt::format(
        "--leader-elect-lease-duration ({} ms) must be longer than --leader-elect-renew-deadline "
        "({} ms)",
        o.lease_duration.count(), o.renew_deadline.count()));
  }
  if (o.renew_deadline.count() * 10 <= o.retry_period.count() * 12) {
    return Status::InvalidArgument(
        fmt::format("--leader-elect-renew-deadline ({} ms) must be longer than 1.2 × "
                    "--leader-elect-retry-period ({} ms)",
                    o.renew_deadline.count(), o.retry_period.count()));
  }
  return Status::Ok();
}

std::string DefaultLeaderIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device rd;
  return fmt::format("{}_{:08x}{:08x}", host[0] ? host : "etna", rd(), rd());
}

LeaderElector::LeaderElector(RestClient* rest, LeaderElectionOptions options, const Clock* clock)
    : rest_(rest),
      options_(std::move(options)),
      clock_(clock),
      path_(Path("leases", options_.lease_namespace, options_.lease_name)) {}

bool LeaderElector::TryAcquireOrRenew(TimeMs now) {
  const std::string now_text = FormatRfc3339Micro(now);
  auto got = rest_->Get(path_);
  if (!got.ok()) {
    if (got.status().code() != StatusCode::kNotFound) return false;
    nlohmann::json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", options_.lease_name}, {"namespace", options_.lease_namespace}}},
        {"spec",
         {{"holderIdentity", options_.identity},
          {"leaseDurationSeconds", Seconds(options_.lease_duration)},
          {"acquireTime", now_text},
          {"renewTime", now_text},
          {"leaseTransitions", 0}}}};
    if (!rest_->Create(Path("leases", options_.lease_namespace), lease).ok()) return false;
    std::lock_guard lock(mu_);
    holder_ = options_.identity;
    observed_record_ = Record(lease["spec"]);
    observed_at_ = now;
    return true;
  }
  nlohmann::json lease = std::move(*got);
  nlohmann::json spec = lease.value("spec", nlohmann::json::object());
  const std::string holder = spec.value("holderIdentity", std::string());
  {
    std::lock_guard lock(mu_);
    holder_ = holder;
    const std::string record = Record(spec);
    if (record != observed_record_) {
      observed_record_ = record;
      observed_at_ = now;
    }
    const int64_t duration_ms =
        spec.value("leaseDurationSeconds", Seconds(options_.lease_duration)) * 1000;
    if (!holder.empty() && holder != options_.identity && observed_at_ + duration_ms > now) {
      return false;  // held by someone seen alive within the lease duration
    }
  }
  if (holder != options_.identity) {
    spec["acquireTime"] = now_text;
    spec["leaseTransitions"] = spec.value("leaseTransitions", int64_t{0}) + 1;
  }
  spec["holderIdentity"] = options_.identity;
  spec["leaseDurationSeconds"] = Seconds(options_.lease_duration);
  spec["renewTime"] = now_text;
  lease["spec"] = spec;
  // The update carries the resourceVersion read: a race with another candidate is a conflict.
  if (!rest_->Update(path_, lease).ok()) return false;
  std::lock_guard lock(mu_);
  holder_ = options_.identity;
  observed_record_ = Record(spec);
  observed_at_ = now;
  return true;
}

void LeaderElector::Release() {
  auto got = rest_->Get(path_);
  if (!got.ok()) return;
  nlohmann::json lease = std::move(*got);
  if (lease["spec"].value("holderIdentity", std::string()) != options_.identity) return;
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["renewTime"] = FormatRfc3339Micro(clock_->NowMs());
  // A standby takes a Lease without a holder at once; one second is client-go's release value.
  lease["spec"]["leaseDurationSeconds"] = 1;
  (void)rest_->Update(path_, lease);
}

bool LeaderElector::Pause() {
  std::unique_lock lock(mu_);
  return !stop_cv_.wait_for(lock, options_.retry_period, [&] { return stop_; });
}

bool LeaderElector::Run(const std::function<void()>& on_started,
                        const std::function<void()>& on_stopped) {
  // Acquire.
  while (true) {
    if (TryAcquireOrRenew(clock_->NowMs())) break;
    if (!Pause()) return true;
  }
  TimeMs renewed_at = clock_->NowMs();
  leading_ = true;
  on_started();
  // Renew. Each attempt runs on its own thread, so that a request hanging on a cut-off network
  // cannot keep this loop from noticing the deadline. A new attempt starts every retry_period
  // even while earlier ones hang: etcd holds a write sent while it has no leader for its request
  // timeout (7 s with its defaults) but takes new ones as soon as it has elected one (about
  // 2.5 s after losing the old), and the first of the attempts to succeed renews the Lease.
  // Their writes carry the resourceVersion they read, so a late one cannot undo a newer one.
  struct Attempt {
    TimeMs sent;
    std::future<bool> renewed;
  };
  std::vector<Attempt> attempts;
  TimeMs next_at = renewed_at + options_.retry_period.count();
  uint64_t seen_finished = 0;
  bool stopped = false;
  while (true) {
    const TimeMs now = clock_->NowMs();
    std::erase_if(attempts, [&](Attempt& a) {
      if (a.renewed.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
      if (a.renewed.get()) renewed_at = std::max(renewed_at, a.sent);
      return true;
    });
    if (DeadlinePassed(renewed_at, now)) {
      leading_ = false;  // stop acting first; hanging attempts are waited for below
      on_stopped();
      break;
    }
    if (now >= next_at) {
      if (attempts.size() < kMaxRenewalsInFlight) {
        attempts.push_back({now, std::async(std::launch::async, [this, now] {
                              const bool renewed = TryAcquireOrRenew(now);
                              {
                                std::lock_guard lock(mu_);
                                ++finished_attempts_;
                              }
                              stop_cv_.notify_all();
                              return renewed;
                            })});
      }
      next_at = now + options_.retry_period.count();
    }
    // Until the next attempt is due, an attempt finishes, the deadline or Stop().
    const TimeMs wake = std::min(next_at, renewed_at + options_.renew_deadline.count());
    std::unique_lock lock(mu_);
    stop_cv_.wait_for(lock, std::chrono::milliseconds(std::max<TimeMs>(0, wake - now)),
                      [&] { return stop_ || finished_attempts_ != seen_finished; });
    seen_finished = finished_attempts_;
    if (stop_) {
      stopped = true;
      break;
    }
  }
  for (Attempt& a : attempts) a.renewed.wait();
  if (leading_) {
    leading_ = false;
    on_stopped();
  }
  // A lost Lease is not released: the servers did not answer, and it expires on its own.
  if (stopped) Release();
  return stopped;
}

void LeaderElector::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
}

std::string LeaderElector::Holder() const {
  std::lock_guard lock(mu_);
  return holder_;
}

}  // namespace etna::client
