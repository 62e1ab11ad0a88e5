#include "scheduler/convert.h"

#include <gtest/gtest.h>

#include "api/types/well_known.h"
#include "client/node_gpus.h"
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

}  // namespace
}  // namespace etna::scheduler
