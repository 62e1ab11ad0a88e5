#include "sched/testing/queueing_kit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <vector>

#include "sched/framework/cycle.h"
#include "sched/framework/session.h"

namespace etna::sched::testkit {
namespace {

class TestQuotaPlugin : public Plugin {
 public:
  std::string_view name() const override { return "test-quota"; }
  void OnSessionOpen(Session& s) override {
    inqueue_.assign(s.queues().size(), ResourceVector());
    for (QueueIdx q = 0; q < static_cast<QueueIdx>(s.queues().size()); ++q) {
      inqueue_[q] = s.queue(q).allocated;
    }
    for (const Job& j : s.jobs()) {
      if (j.queue != kNone && j.phase == PodGroupPhase::kInqueue && j.occupied == 0) {
        inqueue_[j.queue] += j.min_resources;
      }
    }
    s.AddJobEnqueueableFn([this, &s](const Job& j) {
      const Queue& q = s.queue(j.queue);
      if (q.capability.empty()) return Vote::kAbstain;
      return q.capability.Allows(inqueue_[j.queue] + j.min_resources) ? Vote::kPermit
                                                                      : Vote::kReject;
    });
    s.AddJobEnqueuedFn([this](const Job& j) { inqueue_[j.queue] += j.min_resources; });
    s.AddAllocatableFn([](const Queue& q, const Task& t) {
      if (q.capability.Allows(q.allocated + t.request)) return PredicateResult::Pass();
      return PredicateResult::Fail(fmt::format("queue {}: capability exceeded", q.name));
    });
  }

 private:
  std::vector<ResourceVector> inqueue_;
};

}  // namespace

const Registry& QuotaRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    RegisterBuiltins(*r);
    r->AddPlugin("test-quota", [](PluginBuildContext&) -> Result<std::unique_ptr<Plugin>> {
      return std::unique_ptr<Plugin>(new TestQuotaPlugin());
    });
    return r;
  }();
  return *registry;
}

void ApplyDecision(const Decision& d, Snapshot& s) {
  std::map<std::string, NodeIdx> nodes;
  for (size_t i = 0; i < s.nodes.size(); ++i) nodes[s.nodes[i].name] = static_cast<NodeIdx>(i);
  for (const auto& b : d.binds) {
    Task& t = s.tasks[b.task];
    t.status = TaskStatus::kRunning;
    t.node = nodes.at(b.node);
    t.devices = b.devices;
    t.start_ms = s.now_ms;
    t.nominated_node = kNone;
  }
  for (const auto& e : d.evictions) {
    Task& t = s.tasks[e.task];
    t.status = TaskStatus::kPending;
    t.node = kNone;
    t.devices.clear();
    t.creation_ms = s.now_ms;  // the pod is re-created
    ++s.capacity_generation;
  }
  for (const auto& u : d.jobs) {
    s.jobs[u.job].phase = u.phase;
    s.jobs[u.job].backoff = u.backoff;
    if (u.evicted_in_run_changed) {
      s.jobs[u.job].evicted_in_run = u.evicted_in_run;
      s.jobs[u.job].evicted_since_ms = u.evicted_since_ms;
    }
  }
  s.reservations = d.reservations;
}

std::string DecisionString(const Decision& d) {
  std::string out;
  for (const auto& b : d.binds) {
    out += fmt::format("bind {} {} {} [{}]\n", b.task, b.pod_name, b.node,
                       fmt::join(b.gpu_indices, ","));
  }
  for (const auto& e : d.evictions) {
    out += fmt::format("evict {} {} {} {}\n", e.task, e.node, e.reason, e.message);
  }
  for (const auto& n : d.nominations) out += fmt::format("nominate {} {}\n", n.task, n.node);
  for (const auto& u : d.jobs) {
    out += fmt::format("job {} {} {} {} {} {} {} {}\n", u.job, PodGroupPhaseName(u.phase),
                       u.condition, u.reason, u.message, u.backoff.failures,
                       u.backoff.not_before_ms, u.backoff.delay_ms);
  }
  for (const auto& r : d.reservations) {
    out += fmt::format("reserve {} {}", r.job_uid, r.since_ms);
    for (const auto& [n, amount] : r.nodes) out += fmt::format(" {}:{}", n, amount.ToString());
    out += "\n";
  }
  return out;
}

}  // namespace etna::sched::testkit
