#include <gtest/gtest.h>

#include <string>

#include "api/resources/table.h"
#include "api/resources/table_test_util.h"

namespace etna::api::resources {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing_util::Created;
using testing_util::Now;
using testing_util::R;
using testing_util::RenderOne;

json PodCells(const json& pod) { return RenderOne("", "v1", "pods", pod)["rows"][0]["cells"]; }

json Pod(json status, json extra_spec = json::object()) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "default"}}},
              {"spec", {{"containers", {{{"name", "a"}}, {{"name", "b"}}}}}},
              {"status", std::move(status)}};
  pod["spec"].update(extra_spec);
  return Created(pod, 330);
}

json Running(bool ready, int restarts = 0) {
  return {{"name", "c"},
          {"ready", ready},
          {"restartCount", restarts},
          {"state", {{"running", {{"startedAt", "2024-12-31T23:50:00Z"}}}}}};
}

TEST(PodTableTest, States) {
  struct Case {
    const char* name;
    json pod;
    const char* ready;
    const char* status;
    const char* restarts;
  };
  json waiting = {{"name", "c"},
                  {"ready", false},
                  {"restartCount", 0},
                  {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}};
  json crash = {
      {"name", "c"},
      {"ready", false},
      {"restartCount", 5},
      {"lastState", {{"terminated", {{"exitCode", 1}, {"finishedAt", "2024-12-31T23:58:00Z"}}}}},
      {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}};
  json completed = {{"name", "c"},
                    {"ready", false},
                    {"restartCount", 0},
                    {"state", {{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}}}};
  json error = {{"name", "c"},
                {"ready", false},
                {"restartCount", 0},
                {"state", {{"terminated", {{"exitCode", 2}, {"reason", "Error"}}}}}};
  json no_reason = {{"name", "c"},
                    {"ready", false},
                    {"restartCount", 0},
                    {"state", {{"terminated", {{"exitCode", 137}}}}}};
  json terminating = Pod({{"phase", "Running"}, {"containerStatuses", {Running(true)}}});
  terminating["metadata"]["deletionTimestamp"] = "2024-12-31T23:59:00Z";
  json init = Pod({{"phase", "Pending"},
                   {"initContainerStatuses",
                    {{{"name", "i"},
                      {"ready", false},
                      {"restartCount", 0},
                      {"state", {{"running", json::object()}}}}}}},
                  {{"initContainers", {{{"name", "i"}}, {{"name", "j"}}}}});
  for (const Case& c : {
           Case{"pending, no status", Pod(json::object()), "0/2", "Pending", "0"},
           Case{"pending phase", Pod({{"phase", "Pending"}}), "0/2", "Pending", "0"},
           Case{"creating", Pod({{"phase", "Pending"}, {"containerStatuses", {waiting}}}), "0/2",
                "ContainerCreating", "0"},
           Case{"running",
                Pod({{"phase", "Running"},
                     {"containerStatuses", {Running(true), Running(true, 2)}}}),
                "2/2", "Running", "2"},
           Case{"crash loop",
                Pod({{"phase", "Running"}, {"containerStatuses", {Running(true), crash}}}), "1/2",
                "CrashLoopBackOff", "5 (2m ago)"},
           Case{"completed", Pod({{"phase", "Succeeded"}, {"containerStatuses", {completed}}}),
                "0/2", "Completed", "0"},
           Case{"completed with a running sibling, not ready",
                Pod({{"phase", "Running"}, {"containerStatuses", {completed, Running(true)}}}),
                "1/2", "NotReady", "0"},
           Case{"error", Pod({{"phase", "Failed"}, {"containerStatuses", {error}}}), "0/2", "Error",
                "0"},
           Case{"exit code without reason",
                Pod({{"phase", "Failed"}, {"containerStatuses", {no_reason}}}), "0/2",
                "ExitCode:137", "0"},
           Case{"evicted", Pod({{"phase", "Failed"}, {"reason", "Evicted"}}), "0/2", "Evicted",
                "0"},
           Case{"terminating", terminating, "1/2", "Terminating", "0"},
           Case{"init running", init, "0/2", "Init:0/2", "0"},
       }) {
    json cells = PodCells(c.pod);
    ASSERT_EQ(cells.size(), 9u) << c.name;
    EXPECT_EQ(cells[0], "p") << c.name;
    EXPECT_EQ(cells[1], c.ready) << c.name;
    EXPECT_EQ(cells[2], c.status) << c.name;
    EXPECT_EQ(cells[3], c.restarts) << c.name;
    EXPECT_EQ(cells[4], "5m30s") << c.name;
  }
}

TEST(PodTableTest, WideCells) {
  json pod =
      Pod({{"phase", "Running"},
           {"podIP", "10.0.0.7"},
           {"nominatedNodeName", "n2"},
           {"conditions", {{{"type", "gpu-ready"}, {"status", "True"}}}}},
          {{"nodeName", "n1"},
           {"readinessGates", {{{"conditionType", "gpu-ready"}}, {{"conditionType", "x"}}}}});
  json cells = PodCells(pod);
  EXPECT_EQ(cells[5], "10.0.0.7");
  EXPECT_EQ(cells[6], "n1");
  EXPECT_EQ(cells[7], "n2");
  EXPECT_EQ(cells[8], "1/2");
  json bare = PodCells(Pod(json::object()));
  EXPECT_EQ(bare[5], "<none>");
  EXPECT_EQ(bare[6], "<none>");
  EXPECT_EQ(bare[7], "<none>");
  EXPECT_EQ(bare[8], "<none>");
}

TEST(TableTest, Nodes) {
  json node =
      Created({{"metadata",
                {{"name", "n1"},
                 {"labels",
                  {{"node-role.kubernetes.io/worker", ""},
                   {"node-role.kubernetes.io/gpu", ""},
                   {"kubernetes.io/hostname", "n1"}}}}},
               {"spec", {{"unschedulable", true}}},
               {"status",
                {{"conditions",
                  {{{"type", "MemoryPressure"}, {"status", "False"}},
                   {{"type", "Ready"}, {"status", "True"}}}},
                 {"addresses", {{{"type", "InternalIP"}, {"address", "10.0.0.1"}}}},
                 {"nodeInfo", {{"kubeletVersion", "v1.32.0-etna"}, {"osImage", "Debian 12"}}}}}},
              100 * 86400);
  EXPECT_EQ(RenderOne("", "v1", "nodes", node)["rows"][0]["cells"],
            json({"n1", "Ready,SchedulingDisabled", "gpu,worker", "100d", "v1.32.0-etna",
                  "10.0.0.1", "<none>", "Debian 12", "<unknown>", "<unknown>"}));
  json not_ready =
      Created({{"metadata", {{"name", "n2"}}},
               {"status", {{"conditions", {{{"type", "Ready"}, {"status", "Unknown"}}}}}}},
              0);
  json cells = RenderOne("", "v1", "nodes", not_ready)["rows"][0]["cells"];
  EXPECT_EQ(cells[1], "NotReady");
  EXPECT_EQ(cells[2], "<none>");
  json no_conditions = Created({{"metadata", {{"name", "n3"}}}}, 0);
  EXPECT_EQ(RenderOne("", "v1", "nodes", no_conditions)["rows"][0]["cells"][1], "Unknown");
}

TEST(TableTest, EventsAndSimpleKinds) {
  json event = Created({{"metadata", {{"name", "job1.17a"}, {"namespace", "default"}}},
                        {"involvedObject", {{"kind", "Job"}, {"name", "job1"}}},
                        {"type", "Warning"},
                        {"reason", "FailedScheduling"},
                        {"message", " 0/3 nodes are available\n"},
                        {"source", {{"component", "etna-scheduler"}}},
                        {"firstTimestamp", "2024-12-31T23:00:00Z"},
                        {"lastTimestamp", "2024-12-31T23:59:00Z"},
                        {"count", 4}},
                       3600);
  EXPECT_EQ(RenderOne("", "v1", "events", event)["rows"][0]["cells"],
            json({"60s", "Warning", "FailedScheduling", "job/job1", "", "etna-scheduler",
                  "0/3 nodes are available", "60m", 4, "job1.17a"}));
  json micro = {{"metadata", {{"name", "e2"}}},
                {"eventTime", "2024-12-31T23:59:50.000000Z"},
                {"involvedObject", {{"kind", "Pod"}}}};
  json cells = RenderOne("", "v1", "events", micro)["rows"][0]["cells"];
  EXPECT_EQ(cells[0], "10s");
  EXPECT_EQ(cells[3], "pod");
  EXPECT_EQ(cells[8], 1);

  json cm = Created({{"metadata", {{"name", "cm"}}}, {"data", {{"a", "1"}, {"b", "2"}}}}, 60);
  EXPECT_EQ(RenderOne("", "v1", "configmaps", cm)["rows"][0]["cells"], json({"cm", 2, "60s"}));
  json secret =
      Created({{"metadata", {{"name", "s"}}}, {"type", "Opaque"}, {"data", {{"k", "dg=="}}}}, 60);
  EXPECT_EQ(RenderOne("", "v1", "secrets", secret)["rows"][0]["cells"],
            json({"s", "Opaque", 1, "60s"}));
  json svc = Created({{"metadata", {{"name", "chief"}}},
                      {"spec",
                       {{"clusterIP", "None"},
                        {"selector", {{"app", "x"}}},
                        {"ports", {{{"port", 29500}, {"protocol", "TCP"}}}}}}},
                     60);
  EXPECT_EQ(RenderOne("", "v1", "services", svc)["rows"][0]["cells"],
            json({"chief", "ClusterIP", "None", "<none>", "29500/TCP", "60s", "app=x"}));
  json ep = Created({{"metadata", {{"name", "chief"}}},
                     {"subsets",
                      {{{"addresses", {{{"ip", "10.0.0.1"}}, {{"ip", "10.0.0.2"}}}},
                        {"ports", {{{"port", 80}}}}}}}},
                    60);
  EXPECT_EQ(RenderOne("", "v1", "endpoints", ep)["rows"][0]["cells"],
            json({"chief", "10.0.0.1:80,10.0.0.2:80", "60s"}));
  json ns = Created({{"metadata", {{"name", "default"}}}, {"status", {{"phase", "Active"}}}}, 60);
  EXPECT_EQ(RenderOne("", "v1", "namespaces", ns)["rows"][0]["cells"],
            json({"default", "Active", "60s"}));
  json pc =
      Created({{"metadata", {{"name", "high"}}}, {"value", 1000}, {"globalDefault", true}}, 60);
  EXPECT_EQ(RenderOne("scheduling.k8s.io", "v1", "priorityclasses", pc)["rows"][0]["cells"],
            json({"high", 1000, true, "60s"}));
  json lease = {{"metadata", {{"name", "etna"}}}, {"spec", {{"holderIdentity", "a_1"}}}};
  EXPECT_EQ(RenderOne("coordination.k8s.io", "v1", "leases", lease)["rows"][0]["cells"],
            json({"etna", "a_1", "<unknown>"}));
}

// KEDA's columns, whose Ready and Active read a condition through a JSONPath filter.
TEST(TableTest, ScaledObjectColumnsFilterItsConditions) {
  json so = Created(
      {{"metadata", {{"name", "bert-scaler"}}},
       {"spec",
        {{"scaleTargetRef", {{"name", "bert"}}}, {"minReplicaCount", 0}, {"maxReplicaCount", 6}}},
       {"status",
        {{"scaleTargetKind", "apps/v1.Deployment"},
         {"conditions",
          {{{"type", "Ready"}, {"status", "True"}}, {{"type", "Active"}, {"status", "False"}}}}}}},
      30);
  EXPECT_EQ(RenderOne("keda.sh", "v1alpha1", "scaledobjects", so)["rows"][0]["cells"],
            json({"bert-scaler", "apps/v1.Deployment", "bert", 0, 6, "True", "False", "30s"}));
  so["status"].erase("conditions");
  EXPECT_EQ(RenderOne("keda.sh", "v1alpha1", "scaledobjects", so)["rows"][0]["cells"][5], nullptr);
}

TEST(TableTest, DeploymentAndHpa) {
  json deploy = Created(
      {{"metadata", {{"name", "web"}}},
       {"spec",
        {{"replicas", 3},
         {"selector", {{"matchLabels", {{"app", "web"}}}}},
         {"template", {{"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}}}},
       {"status", {{"readyReplicas", 2}, {"updatedReplicas", 3}, {"availableReplicas", 2}}}},
      60);
  EXPECT_EQ(RenderOne("apps", "v1", "deployments", deploy)["rows"][0]["cells"],
            json({"web", "2/3", 3, 2, "60s", "c", "nginx", "app=web"}));

  json hpa = Created(
      {{"metadata", {{"name", "web"}}},
       {"spec",
        {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}},
         {"minReplicas", 1},
         {"maxReplicas", 10},
         {"metrics",
          {{{"type", "Resource"},
            {"resource",
             {{"name", "cpu"},
              {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}}}}},
       {"status",
        {{"currentReplicas", 2},
         {"currentMetrics",
          {{{"type", "Resource"},
            {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", 45}}}}}}}}}}},
      60);
  EXPECT_EQ(RenderOne("autoscaling", "v2", "horizontalpodautoscalers", hpa)["rows"][0]["cells"],
            json({"web", "Deployment/web", "cpu: 45%/80%", "1", 10, 2, "60s"}));
  hpa["status"].erase("currentMetrics");
  hpa["spec"].erase("minReplicas");
  json cells = RenderOne("autoscaling", "v2", "horizontalpodautoscalers", hpa)["rows"][0]["cells"];
  EXPECT_EQ(cells[2], "cpu: <unknown>/80%");
  EXPECT_EQ(cells[3], "<unset>");
}

TEST(TableTest, BatchJobAndCronJob) {
  json job =
      Created({{"metadata", {{"name", "pi"}}},
               {"spec",
                {{"completions", 3},
                 {"selector", {{"matchLabels", {{"batch.kubernetes.io/controller-uid", "u"}}}}},
                 {"template", {{"spec", {{"containers", {{{"name", "c"}, {"image", "perl"}}}}}}}}}},
               {"status", {{"succeeded", 1}, {"startTime", "2024-12-31T23:58:00Z"}}}},
              120);
  EXPECT_EQ(RenderOne("batch", "v1", "jobs", job)["rows"][0]["cells"],
            json({"pi", "Running", "1/3", "2m", "2m", "c", "perl",
                  "batch.kubernetes.io/controller-uid=u"}));
  job["status"]["completionTime"] = "2024-12-31T23:59:30Z";
  job["status"]["conditions"] = {{{"type", "Complete"}, {"status", "True"}}};
  job["spec"].erase("completions");
  job["spec"]["parallelism"] = 2;
  json cells = RenderOne("batch", "v1", "jobs", job)["rows"][0]["cells"];
  EXPECT_EQ(cells[1], "Complete");
  EXPECT_EQ(cells[2], "1/1 of 2");
  EXPECT_EQ(cells[3], "90s");

  json cron = Created(
      {{"metadata", {{"name", "nightly"}}},
       {"spec",
        {{"schedule", "0 3 * * *"},
         {"suspend", false},
         {"jobTemplate",
          {{"spec",
            {{"template", {{"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}}}}},
       {"status", {{"active", {{{"name", "nightly-1"}}}}}}},
      60);
  EXPECT_EQ(
      RenderOne("batch", "v1", "cronjobs", cron)["rows"][0]["cells"],
      json({"nightly", "0 3 * * *", "<none>", false, 1, "<none>", "60s", "c", "i", "<none>"}));
}

}  // namespace
}  // namespace etna::api::resources
