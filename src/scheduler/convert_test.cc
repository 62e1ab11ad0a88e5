#include "scheduler/convert.h"

#include <gtest/gtest.h>

#include "api/types/well_known.h"
#include "client/node_gpus.h"
#include "common/time.h"
#include "scheduler/cache.h"

namespace etna::scheduler {
namespace {

const std::vector<std::string> kNames = {"volcano", "etna"};

json Node(const std::string& name, int gpus) {
  std::vector<client::NodeGpu> list;
  for (int i = 0; i < gpus; ++i) {
    client::NodeGpu g;
    g.index = i;
    g.uuid = "GPU-" + name + "-" + std::to_string(i);
    g.model = "H100";
    g.memory_mib = 81920;
    g.nvlink_domain = 0;
    if (i == gpus - 1) g.mig = {{"1g.10gb", 7}};
    list.push_back(g);
  }
  return {{"metadata",
           {{"name", name},
            {"labels", {{"topology.etna.io/switch", "s0"}}},
            {"annotations", {{api::types::kNodeGpusAnnotation, client::EncodeNodeGpus(list)}}}}},
          {"spec", {{"taints", json::array({{{"key", "k"}, {"effect", "NoSchedule"}}})}}},
          {"status",
           {{"allocatable", {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", gpus}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json Pod(const std::string& name, const std::string& scheduler, const std::string& node = "") {
  json pod = {
      {"metadata",
       {{"name", name},
        {"namespace", "ns"},
        {"uid", "uid-" + name},
        {"annotations", {{api::types::kGroupNameAnnotation, "pg"}}}}},
      {"spec",
       {{"schedulerName", scheduler},
        {"priority", 7},
        {"containers",
         json::array({{{"name", "a"},
                       {"resources", {{"requests", {{"cpu", "1"}, {"nvidia.com/gpu", "1"}}}}}},
                      {{"name", "b"}, {"resources", {{"limits", {{"cpu", "500m"}}}}}}})},
        {"initContainers",
         json::array({{{"name", "i"}, {"resources", {{"requests", {{"cpu", "4"}}}}}}})}}},
      {"status", {{"phase", "Pending"}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

TEST(ConvertTest, QueueStateClosingAsTheUserOrTheControllerWroteIt) {
  auto state = [](const json& q) {
    auto r = ConvertQueue(q);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->queue.state : sched::QueueState::kOpen;
  };
  json base = {{"metadata", {{"name", "q"}}}, {"spec", {{"weight", 1}}}};
  json spec_closing = base;
  spec_closing["spec"]["state"] = "Closing";
  spec_closing["status"] = {{"state", "Open"}};  // the controller has not caught up yet
  json status_closing = base;
  status_closing["status"] = {{"state", "Closing"}};
  json closed = spec_closing;
  closed["status"]["state"] = "Closed";
  EXPECT_EQ(state(spec_closing), sched::QueueState::kClosing);
  EXPECT_EQ(state(status_closing), sched::QueueState::kClosing);
  EXPECT_EQ(state(closed), sched::QueueState::kClosed);
  EXPECT_EQ(state(base), sched::QueueState::kOpen);
}

TEST(ConvertTest, PodGroupMinZoneUsage) {
  json pg = {{"metadata", {{"name", "pg"}, {"namespace", "ns"}}},
             {"spec", {{"minMember", 2}, {"minZoneUsage", {{"nvidia.com/gpu", 2}}}}}};
  auto r = ConvertPodGroup(pg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->job.min_zone_usage.Get(kGpu), 2000);
  EXPECT_EQ(r->job.min_zone_usage.Get(kCpu), 0);
  pg["spec"]["minZoneUsage"]["nvidia.com/gpu"] = "two";
  auto bad = ConvertPodGroup(pg);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("spec.minZoneUsage[nvidia.com/gpu]"), std::string::npos)
      << bad.status().message();
  pg["spec"].erase("minZoneUsage");
  EXPECT_TRUE(ConvertPodGroup(pg)->job.min_zone_usage.IsZero());
}

TEST(ConvertTest, NodeReadsAllocatableTaintsReadyAndGpus) {
  auto n = ConvertNode(Node("n1", 4));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->name, "n1");
  EXPECT_TRUE(n->ready);
  EXPECT_EQ(n->allocatable.Get(kGpu), 4000);
  EXPECT_EQ(n->allocatable.Get(kCpu), 64000);
  ASSERT_EQ(n->gpus.size(), 4u);
  EXPECT_EQ(n->gpus[1].uuid, "GPU-n1-1");
  ASSERT_EQ(n->gpus[3].mig.size(), 1u);
  EXPECT_EQ(n->taints.size(), 1u);
}

TEST(ConvertTest, PodRequestIsSumOfContainersAtLeastInitContainers) {
  auto p = ConvertPod(Pod("a", "volcano"), kNames);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->managed);
  EXPECT_EQ(p->task.request.Get(kCpu), 4000);  // max(1 + 0.5, 4)
  EXPECT_EQ(p->task.request.Get(kGpu), 1000);
  EXPECT_EQ(p->group, "ns/pg");
  EXPECT_EQ(p->task.priority, 7);
  EXPECT_EQ(p->task.status, sched::TaskStatus::kPending);
  EXPECT_FALSE(ConvertPod(Pod("b", "default-scheduler"), kNames)->managed);
}

TEST(ConvertTest, BadQuantityNamesTheField) {
  json pod = Pod("a", "volcano");
  pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots";
  auto p = ConvertPod(pod, kNames);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("spec.containers[0].resources[cpu]"), std::string::npos)
      << p.status().message();
}

TEST(ConvertTest, BindAnnotationsRoundTrip) {
  auto node = ConvertNode(Node("n1", 4));
  ASSERT_TRUE(node.ok());
  sched::BindDecision b;
  sched::DeviceAllocation whole;
  whole.gpu = 1;
  sched::DeviceAllocation mig;
  mig.gpu = 3;
  mig.milli = 0;
  mig.mig_instance = 0;
  b.devices = {whole, mig};
  json a = EncodeBindAnnotations(b, *node);
  EXPECT_EQ(a[api::types::kGpuIdsAnnotation], "1");
  EXPECT_EQ(a[api::types::kGpuUuidsAnnotation], "GPU-n1-1");
  EXPECT_EQ(a[api::types::kMigInstancesAnnotation], "3:1g.10gb:7");
  EXPECT_EQ(a[api::types::kGpuModelAnnotation], node->gpus[1].model);
  EXPECT_FALSE(a.contains(api::types::kGpuMemoryMibAnnotation));

  std::vector<sched::DeviceAllocation> held;
  std::vector<int32_t> mig_ids;
  ASSERT_TRUE(DecodeHeldDevices(a, &held, &mig_ids).ok());
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].gpu, 1);
  EXPECT_EQ(held[0].milli, 1000);
  EXPECT_EQ(mig_ids[1], 7);

  sched::DeviceAllocation share;
  share.gpu = 0;
  share.milli = 300;
  share.cores_percent = 30;
  share.memory_mib = 4096;
  b.devices = {share};
  a = EncodeBindAnnotations(b, *node);
  EXPECT_EQ(a[api::types::kGpuMemoryMibAnnotation], "4096");
  EXPECT_EQ(a[api::types::kGpuCoresPercentAnnotation], "30");
  ASSERT_TRUE(DecodeHeldDevices(a, &held, &mig_ids).ok());
  EXPECT_EQ(held[0], share);
}

// The gang minimum is minAvailable when set (the seed's PodGroup: minMember 8, minAvailable 4),
// else minMember; the podgroup controller's inference label makes an inference job.
TEST(ConvertTest, PodGroupGangMinimumAndWorkloadKind) {
  json pg = {{"metadata", {{"name", "urgent"}, {"namespace", "default"}}},
             {"spec", {{"minMember", 8}, {"minAvailable", 4}}}};
  auto r = ConvertPodGroup(pg);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->job.min_available, 4);
  EXPECT_EQ(r->job.kind, sched::Job::Kind::kTraining);
  pg["spec"].erase("minAvailable");
  pg["metadata"]["labels"] = {{api::types::kWorkloadLabel, api::types::kInferenceWorkload}};
  r = ConvertPodGroup(pg);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->job.min_available, 8);
  EXPECT_EQ(r->job.kind, sched::Job::Kind::kInference);
}

// A pod not yet in a PodGroup is a job of one in the queue admission routed it to (its
// scheduling.volcano.sh/queue-name annotation), with the inference kind when a ReplicaSet owns it.
TEST(ConvertTest, BarePodIsAJobOfOneInItsRoutedQueue) {
  Cache cache(kNames);
  cache.OnQueue("ADDED", {{"metadata", {{"name", "default"}}}, {"spec", {{"weight", 1}}}});
  cache.OnQueue("ADDED",
                {{"metadata", {{"name", "inference-service"}}}, {"spec", {{"weight", 1}}}});
  json service = Pod("svc", "volcano");
  service["metadata"]["annotations"] = {{api::types::kQueueNameAnnotation, "inference-service"}};
  service["metadata"]["ownerReferences"] = {{{"kind", "ReplicaSet"}, {"name", "rs"}}};
  cache.OnPod("ADDED", service);
  json plain = Pod("plain", "volcano");
  plain["metadata"].erase("annotations");
  cache.OnPod("ADDED", plain);
  Assembled a = cache.Assemble(1000);
  ASSERT_EQ(a.snapshot.tasks.size(), 2u);
  for (size_t i = 0; i < a.snapshot.tasks.size(); ++i) {
    const sched::Job& job = a.snapshot.jobs[a.snapshot.tasks[i].job];
    const std::string& queue = a.snapshot.queues[job.queue].name;
    if (a.task_keys[i] == "ns/svc") {
      EXPECT_EQ(queue, "inference-service");
      EXPECT_EQ(job.kind, sched::Job::Kind::kInference);
    } else {
      EXPECT_EQ(queue, "default");
      EXPECT_EQ(job.kind, sched::Job::Kind::kTraining);
    }
  }
}

TEST(ConvertTest, CacheCountsOtherSchedulersPodsAsExternalUse) {
  Cache cache(kNames);
  cache.OnNode("ADDED", Node("n1", 4));
  cache.OnPod("ADDED", Pod("other", "default-scheduler", "n1"));
  cache.OnQueue("ADDED", {{"metadata", {{"name", "default"}}}, {"spec", {{"weight", 1}}}});
  cache.OnPodGroup("ADDED", {{"metadata", {{"name", "pg"}, {"namespace", "ns"}, {"uid", "g"}}},
                             {"spec", {{"minMember", 1}, {"queue", "default"}}}});
  cache.OnPod("ADDED", Pod("mine", "volcano"));
  Assembled a = cache.Assemble(1000);
  ASSERT_EQ(a.snapshot.nodes.size(), 1u);
  EXPECT_EQ(a.snapshot.nodes[0].external_used.Get(kGpu), 1000);
  ASSERT_EQ(a.snapshot.tasks.size(), 1u);
  EXPECT_EQ(a.task_keys[0], "ns/mine");
  EXPECT_EQ(a.snapshot.tasks[0].job, 0);
  EXPECT_EQ(a.snapshot.jobs[0].tasks.size(), 1u);

  cache.MarkBinding("ns/mine", "n1", {sched::DeviceAllocation{}});
  a = cache.Assemble(1000);
  EXPECT_EQ(a.snapshot.tasks[0].status, sched::TaskStatus::kBinding);
  EXPECT_EQ(a.snapshot.tasks[0].node, 0);
  cache.ForgetBinding("ns/mine");
  a = cache.Assemble(1000);
  EXPECT_EQ(a.snapshot.tasks[0].status, sched::TaskStatus::kPending);

  cache.OnPod("DELETED", Pod("other", "default-scheduler", "n1"));
  a = cache.Assemble(1000);
  EXPECT_EQ(a.snapshot.nodes[0].external_used.Get(kGpu), 0);
}

// Every model field the core reads on sched::Queue, sched::Job and sched::Task comes from an API
// object: one object of each kind with every field set, assembled, and each field checked.
// Deliberately not from the API (and so not checked here):
//   Queue::allocated; Job::allocated, occupied, pipelined, succeeded, pending, total_request:
//     session accounting, derived from the tasks at Session::Open.
//   Job::backoff: the scheduler's own retry state, carried in memory between cycles.
//   Job::tasks, Task::job, Task::node, Queue::parent: indices resolved at assembly (checked).
//   Task::nominated_node: nominations are not written to the pod; a pipelined task is placed
//     afresh next cycle.
TEST(ConvertTest, EveryModelFieldTheCoreReadsIsFilledFromTheApi) {
  Cache cache(kNames);
  cache.OnNode("ADDED", Node("n1", 4));
  cache.OnPriorityClass("ADDED", {{"metadata", {{"name", "high"}}}, {"value", 100}});
  cache.OnQueue("ADDED", {{"metadata", {{"name", "root"}}}, {"spec", {{"weight", 1}}}});
  cache.OnQueue("ADDED",
                {{"metadata", {{"name", "q"}, {"creationTimestamp", "2026-01-02T15:04:05Z"}}},
                 {"spec",
                  {{"weight", 3},
                   {"priority", 7},
                   {"reclaimable", false},
                   {"capability", {{"nvidia.com/gpu", "8"}}},
                   {"guarantee", {{"resource", {{"nvidia.com/gpu", "2"}}}}},
                   {"deserved", {{"nvidia.com/gpu", "4"}}},
                   {"parent", "root"},
                   {"state", "Closed"}}}});
  cache.OnPodGroup(
      "ADDED",
      {{"metadata",
        {{"name", "pg"},
         {"namespace", "ns"},
         {"uid", "g"},
         {"creationTimestamp", "2026-01-02T15:04:05Z"},
         {"labels", {{"etna.io/workload", "inference"}}},
         {"annotations", {{api::types::kSlaWaitingTimeAnnotation, "10m"}}}}},
       {"spec",
        {{"minMember", 3},
         {"minAvailable", 2},
         {"minTaskMember", {{"w", 2}}},
         {"queue", "q"},
         {"priorityClassName", "high"},
         {"priority", 5},
         {"minResources", {{"nvidia.com/gpu", "2"}}},
         {"networkTopology", {{"mode", "soft"}, {"highestTierAllowed", 2}}},
         {"runningEstimate", "2h"}}},
       {"status",
        {{"phase", "Running"},
         {api::types::kEvictedInRunStatusField,
          {{"since", "2026-01-02T15:10:00Z"}, {"resources", {{"nvidia.com/gpu", "1"}}}}}}}});
  json pod = Pod("a", "volcano", "n1");
  pod["metadata"]["creationTimestamp"] = "2026-01-02T15:04:05Z";
  pod["metadata"]["labels"] = {{"app", "x"}};
  pod["metadata"]["annotations"][api::types::kTaskSpecAnnotation] = "w";
  pod["metadata"]["annotations"][api::types::kPreemptableAnnotation] = "false";
  pod["metadata"]["annotations"][api::types::kLastCheckpointAnnotation] = "2026-01-02T16:00:00Z";
  pod["metadata"]["annotations"][api::types::kGpuIdsAnnotation] = "2";
  pod["metadata"]["annotations"][api::types::kGpuUuidsAnnotation] = "GPU-n1-2";
  pod["metadata"]["annotations"]["nvidia.com/use-gputype"] = "H100";
  pod["spec"]["priorityClassName"] = "high";
  pod["spec"]["nodeSelector"] = {{"pool", "a"}};
  pod["status"] = {{"phase", "Running"}, {"startTime", "2026-01-02T15:30:00Z"}};
  cache.OnPod("ADDED", pod);

  Assembled a = cache.Assemble(1000);
  const sched::Snapshot& s = a.snapshot;
  ASSERT_EQ(s.queues.size(), 2u);
  const sched::QueueIdx qi = s.queues[0].name == "q" ? 0 : 1;
  const sched::Queue& q = s.queues[qi];
  EXPECT_EQ(q.name, "q");
  EXPECT_EQ(q.weight, 3);
  EXPECT_EQ(q.priority, 7);
  EXPECT_FALSE(q.reclaimable);
  EXPECT_EQ(q.capability.value().Get(kGpu), 8000);
  EXPECT_EQ(q.guarantee.value().Get(kGpu), 2000);
  EXPECT_EQ(q.deserved.value().Get(kGpu), 4000);
  EXPECT_EQ(s.queues[q.parent].name, "root");
  EXPECT_EQ(q.state, sched::QueueState::kClosed);
  const TimeMs created = ParseRfc3339("2026-01-02T15:04:05Z").value();
  EXPECT_EQ(q.creation_ms, created);

  ASSERT_EQ(s.jobs.size(), 1u);
  const sched::Job& j = s.jobs[0];
  EXPECT_EQ(j.uid, "g");
  EXPECT_EQ(j.name, "pg");
  EXPECT_EQ(j.ns, "ns");
  EXPECT_EQ(j.queue, qi);
  EXPECT_EQ(j.min_available, 2);
  EXPECT_EQ(j.min_task_member, (std::map<std::string, int32_t>{{"w", 2}}));
  EXPECT_EQ(j.min_resources.Get(kGpu), 2000);
  EXPECT_EQ(j.priority, 100) << "the priority class wins over spec.priority";
  EXPECT_EQ(j.creation_ms, created);
  EXPECT_EQ(j.phase, sched::PodGroupPhase::kRunning);
  EXPECT_EQ(j.tasks, (std::vector<sched::TaskIdx>{0}));
  EXPECT_EQ(j.sla_waiting_ms, 600'000);
  EXPECT_EQ(j.running_estimate_ms, 7'200'000);
  EXPECT_EQ(j.evicted_in_run.Get(kGpu), 1000);
  EXPECT_EQ(j.evicted_since_ms, ParseRfc3339("2026-01-02T15:10:00Z").value());
  EXPECT_EQ(j.network_topology.mode, sched::Job::NetworkTopology::Mode::kSoft);
  EXPECT_EQ(j.network_topology.highest_tier_allowed, 2);
  EXPECT_EQ(j.kind, sched::Job::Kind::kInference);

  ASSERT_EQ(s.tasks.size(), 1u);
  const sched::Task& t = s.tasks[0];
  EXPECT_EQ(t.uid, "uid-a");
  EXPECT_EQ(t.name, "a");
  EXPECT_EQ(t.ns, "ns");
  EXPECT_EQ(t.role, "w");
  EXPECT_EQ(t.job, 0);
  EXPECT_EQ(t.request.Get(kGpu), 1000);
  ASSERT_NE(t.spec, nullptr);
  EXPECT_EQ(t.spec->node_selector.at("pool"), "a");
  EXPECT_EQ(t.spec->gpu_models, (std::vector<std::string>{"H100"}));
  EXPECT_EQ(t.labels.at("app"), "x");
  EXPECT_EQ(t.status, sched::TaskStatus::kRunning);
  EXPECT_EQ(t.node, 0);
  EXPECT_EQ(t.priority, 7) << "the pod's own spec.priority";
  EXPECT_FALSE(t.preemptable);
  EXPECT_EQ(t.priority_class, "high");
  EXPECT_EQ(t.creation_ms, created);
  EXPECT_EQ(t.start_ms, ParseRfc3339("2026-01-02T15:30:00Z").value());
  EXPECT_EQ(t.last_checkpoint_ms, ParseRfc3339("2026-01-02T16:00:00Z").value());
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].gpu, 2);
}

TEST(ConvertTest, BadRunningHintsNameTheirField) {
  json pod = Pod("a", "volcano");
  pod["metadata"]["annotations"][api::types::kLastCheckpointAnnotation] = "yesterday";
  auto p = ConvertPod(pod, kNames);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find(api::types::kLastCheckpointAnnotation), std::string::npos)
      << p.status().message();

  json pg = {{"metadata", {{"name", "pg"}, {"namespace", "ns"}}},
             {"spec", {{"minMember", 1}, {"runningEstimate", "soon"}}}};
  auto j = ConvertPodGroup(pg);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("spec.runningEstimate"), std::string::npos)
      << j.status().message();
  pg["spec"].erase("runningEstimate");
  pg["status"][api::types::kEvictedInRunStatusField] = {
      {"resources", {{"nvidia.com/gpu", "lots"}}}};
  j = ConvertPodGroup(pg);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("status.evictedInRun.resources"), std::string::npos)
      << j.status().message();
  pg["status"][api::types::kEvictedInRunStatusField] = {{"since", "then"}};
  j = ConvertPodGroup(pg);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("status.evictedInRun.since"), std::string::npos)
      << j.status().message();
}

}  // namespace
}  // namespace etna::scheduler
