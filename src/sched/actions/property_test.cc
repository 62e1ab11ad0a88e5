// Property tests: random clusters, one "enqueue, allocate, backfill" cycle, invariants that
// must hold for every decision.
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>

#include "common/rng.h"
#include "sched/framework/cycle.h"
#include "sched/framework/registry.h"
#include "sched/testing/cluster_builder.h"
#include "sched/testing/queueing_kit.h"

namespace etna::sched {
namespace {

using testkit::ApplyDecision;
using testkit::ClusterBuilder;
using testkit::DecisionString;

constexpr int kSeeds = 200;

std::string ConfYaml(bool capacity) {
  // Every action, so evictions and pipelining are checked too.
  std::string yaml = R"(
actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: nodeorder
  - name: binpack
)";
  if (capacity) yaml += "  - name: capacity\n";
  return yaml;
}

int Pick(Rng& rng, int lo, int hi) { return lo + static_cast<int>(rng.Uniform(hi - lo + 1)); }

void AddJobs(Rng& rng, ClusterBuilder& b, int queues, int count, const std::string& prefix) {
  for (int i = 0; i < count; ++i) {
    int size = Pick(rng, 1, 16);
    auto& j = b.Job(fmt::format("{}{}", prefix, i));
    j.InQueue(fmt::format("q{}", rng.Uniform(queues)));
    j.Priority(std::array{10, 50, 100}[rng.Uniform(3)]);
    j.Phase(rng.Uniform(2) ? PodGroupPhase::kPending : PodGroupPhase::kInqueue);
    if (rng.Uniform(3) == 0) j.RunningEstimate(Pick(rng, 1, 30) * 60'000);
    std::string request;
    switch (rng.Uniform(6)) {
      case 0:
        request = "";
        break;  // BestEffort
      case 1:
        request = fmt::format("cpu={}", Pick(rng, 1, 16));
        break;
      case 2:
        request = "cpu=1,nvidia.com/gpu=500m";
        break;
      default:
        request = fmt::format("cpu={},memory={}Gi,nvidia.com/gpu={}", Pick(rng, 1, 8),
                              Pick(rng, 1, 64), std::array{1, 1, 2, 4, 8}[rng.Uniform(5)]);
    }
    j.Tasks("w", size, request);
    j.MinAvailable(request.empty() ? size : Pick(rng, 1, size));
  }
}

Snapshot RandomCluster(uint64_t seed, bool capacity) {
  Rng rng(seed);
  ClusterBuilder b;
  int nodes = Pick(rng, 2, 12);
  for (int i = 0; i < nodes; ++i) {
    auto& n = b.Node(fmt::format("n{}", i));
    n.Resources(fmt::format("cpu={},memory={}Gi", Pick(rng, 16, 64), Pick(rng, 64, 512)));
    int gpus = std::array{0, 4, 8, 8}[rng.Uniform(4)];
    if (gpus > 0) n.Gpus(gpus, "H100", Pick(rng, 1, 2));
  }
  int queues = Pick(rng, 1, 3);
  for (int q = 0; q < queues; ++q) {
    auto& qb = b.Queue(fmt::format("q{}", q));
    qb.Weight(Pick(rng, 1, 4));
    if (rng.Uniform(2)) qb.Capability(fmt::format("nvidia.com/gpu={}", Pick(rng, 2, 48)));
  }
  // Some jobs run already: place them with a first cycle, then add more pending work.
  AddJobs(rng, b, queues, Pick(rng, 1, 8), "run");
  Snapshot s = b.Build();
  Decision first = testkit::Schedule(s, ConfYaml(capacity));
  ApplyDecision(first, s);
  ClusterBuilder more;
  AddJobs(rng, more, queues, Pick(rng, 1, 12), "new");
  for (int q = 0; q < queues; ++q) more.Queue(fmt::format("q{}", q));
  Snapshot extra = more.Build();
  // Both builders create "default" first, then q0.., so queue indices agree.
  for (Job job : extra.jobs) {
    JobIdx ji = static_cast<JobIdx>(s.jobs.size());
    std::vector<TaskIdx> tasks;
    for (TaskIdx t : job.tasks) {
      Task task = extra.tasks[t];
      task.job = ji;
      tasks.push_back(static_cast<TaskIdx>(s.tasks.size()));
      s.tasks.push_back(task);
    }
    job.tasks = tasks;
    job.creation_ms += 1000;
    s.jobs.push_back(job);
  }
  s.now_ms += 60'000;
  return s;
}

// Checks every invariant on `s` after the decision was applied; returns the failures.
std::vector<std::string> Violations(const Snapshot& s, bool check_capability) {
  std::vector<std::string> out;
  std::vector<ResourceVector> used(s.nodes.size());
  std::map<std::pair<NodeIdx, int32_t>, std::pair<int, int>> device;  // whole users, milli
  std::vector<ResourceVector> queue_alloc(s.queues.size());
  for (const Task& t : s.tasks) {
    if (!HoldsNode(t.status)) continue;
    used[t.node] += t.request;
    if (t.job != kNone) queue_alloc[s.jobs[t.job].queue] += t.request;
    for (const auto& d : t.devices) {
      auto& [whole, milli] = device[{t.node, d.gpu}];
      whole += d.milli == 1000;
      milli += d.milli;
    }
  }
  for (size_t n = 0; n < s.nodes.size(); ++n) {
    if (!(used[n] + s.nodes[n].external_used).LessEqual(s.nodes[n].allocatable)) {
      out.push_back(fmt::format("node {} overcommitted: {} > {}", s.nodes[n].name,
                                used[n].ToString(), s.nodes[n].allocatable.ToString()));
    }
  }
  for (const auto& [key, use] : device) {
    if (use.second > 1000 || use.first > 1) {
      out.push_back(fmt::format("GPU {} of node {} shared: {} whole users, {} milli", key.second,
                                s.nodes[key.first].name, use.first, use.second));
    }
  }
  for (const Job& j : s.jobs) {
    int holding = 0;
    for (TaskIdx t : j.tasks) holding += HoldsNode(s.tasks[t].status);
    if (holding != 0 && holding < j.min_available) {
      out.push_back(
          fmt::format("job {} holds {} < minAvailable {}", j.name, holding, j.min_available));
    }
  }
  if (check_capability) {
    for (size_t q = 0; q < s.queues.size(); ++q) {
      if (!s.queues[q].capability.Allows(queue_alloc[q])) {
        out.push_back(fmt::format("queue {} above capability: {}", s.queues[q].name,
                                  queue_alloc[q].ToString()));
      }
    }
  }
  return out;
}

void RunSeeds(bool capacity) {
  SchedulerConf conf = testkit::Conf(ConfYaml(capacity));
  int binds = 0;
  int reservations = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    Snapshot s = RandomCluster(seed, capacity);
    ASSERT_TRUE(Violations(s, capacity).empty())
        << "first cycle: " << fmt::format("{}", fmt::join(Violations(s, capacity), "; "));
    auto d1 = RunCycle(s, conf);
    auto d2 = RunCycle(s, conf);
    ASSERT_TRUE(d1.ok() && d2.ok());
    ASSERT_EQ(DecisionString(*d1), DecisionString(*d2)) << "not deterministic";
    binds += static_cast<int>(d1->binds.size());
    reservations += static_cast<int>(d1->reservations.size());
    ApplyDecision(*d1, s);
    auto v = Violations(s, capacity);
    EXPECT_TRUE(v.empty()) << fmt::format("{}", fmt::join(v, "; "));
  }
  EXPECT_GT(binds, kSeeds) << "the generator should produce placeable work";
  EXPECT_GT(reservations, 0) << "starving large gangs should exercise reservations";
}

TEST(PropertyTest, RandomClustersKeepInvariants) { RunSeeds(/*capacity=*/false); }

TEST(PropertyTest, RandomClustersStayWithinQueueCapability) {
  if (!BuiltinRegistry().HasPlugin("capacity")) {
    GTEST_SKIP() << "queue capability is enforced by the capacity plugin, not registered here";
  }
  RunSeeds(/*capacity=*/true);
}

}  // namespace
}  // namespace etna::sched
