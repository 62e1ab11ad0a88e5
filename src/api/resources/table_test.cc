#include "api/resources/table.h"

#include <gtest/gtest.h>

#include <string>

#include "api/resources/table_printers.h"

namespace etna::api::resources {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const ResourceRegistry& R() { return ResourceRegistry::Default(); }

// 2025-01-01T00:00:00Z; objects below are created relative to it.
std::chrono::system_clock::time_point Now() {
  return *internal::ParseTimestamp("2025-01-01T00:00:00Z");
}

TEST(HumanDurationTest, MatchesKubernetes) {
  struct Case {
    int64_t seconds;
    const char* want;
  };
  constexpr int64_t kMin = 60, kHour = 3600, kDay = 86400, kYear = 365 * kDay;
  for (const Case& c : {
           Case{-5, "<invalid>"},
           Case{-2, "<invalid>"},
           Case{-1, "0s"},
           Case{0, "0s"},
           Case{45, "45s"},
           Case{119, "119s"},
           Case{120, "2m"},
           Case{121, "2m1s"},
           Case{5 * kMin + 30, "5m30s"},
           Case{9 * kMin + 59, "9m59s"},
           Case{10 * kMin, "10m"},
           Case{10 * kMin + 59, "10m"},
           Case{45 * kMin, "45m"},
           Case{179 * kMin, "179m"},
           Case{3 * kHour, "3h"},
           Case{3 * kHour + 20 * kMin, "3h20m"},
           Case{7 * kHour + 59 * kMin, "7h59m"},
           Case{8 * kHour, "8h"},
           Case{20 * kHour, "20h"},
           Case{47 * kHour + 59 * kMin, "47h"},
           Case{48 * kHour, "2d"},
           Case{3 * kDay + 4 * kHour, "3d4h"},
           Case{7 * kDay + 23 * kHour, "7d23h"},
           Case{8 * kDay, "8d"},
           Case{100 * kDay, "100d"},
           Case{729 * kDay, "729d"},
           Case{2 * kYear, "2y"},
           Case{2 * kYear + 30 * kDay, "2y30d"},
           Case{7 * kYear + 364 * kDay, "7y364d"},
           Case{8 * kYear, "8y"},
           Case{20 * kYear + 5 * kDay, "20y"},
       }) {
    EXPECT_EQ(HumanDuration(seconds(c.seconds)), c.want) << c.seconds;
  }
}

TEST(TimestampTest, ParsesRfc3339) {
  auto base = Now();
  EXPECT_EQ(internal::ParseTimestamp("2024-12-31T23:59:15Z"), base - seconds(45));
  EXPECT_EQ(internal::ParseTimestamp("2025-01-01T02:00:00+02:00"), base);
  EXPECT_EQ(internal::ParseTimestamp("2024-12-31T23:00:00.123456-01:00"), base);
  EXPECT_EQ(internal::ParseTimestamp("2024-02-29T00:00:00Z"), base - std::chrono::hours(24 * 307));
  for (const char* bad : {"", "yesterday", "2025-01-01", "2025-01-01T00:00:00",
                          "2025-13-01T00:00:00Z", "2025-02-30T00:00:00Z", "2025-01-01T24:00:00Z",
                          "2025-01-01T00:00:00Zjunk", "2025-01-01T00:00:00.Z"}) {
    EXPECT_FALSE(internal::ParseTimestamp(bad).has_value()) << bad;
  }
}

TEST(WantsTableTest, Accept) {
  EXPECT_TRUE(WantsTable(
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta."
      "k8s.io,application/json"));
  EXPECT_TRUE(WantsTable("application/json; as=Table; v=v1; g=meta.k8s.io"));
  EXPECT_FALSE(WantsTable("application/json"));
  EXPECT_FALSE(WantsTable("application/json, */*"));
  EXPECT_FALSE(WantsTable("application/vnd.kubernetes.protobuf,application/json"));
  EXPECT_FALSE(WantsTable("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"));
  EXPECT_FALSE(WantsTable("application/json;as=Table;v=v1;g=other.io"));
  EXPECT_FALSE(WantsTable(""));
}

json Created(json object, int64_t seconds_ago) {
  auto t = std::chrono::system_clock::to_time_t(Now() - seconds(seconds_ago));
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  object["metadata"]["creationTimestamp"] = buf;
  return object;
}

json RenderOne(std::string_view group, std::string_view version, std::string_view plural,
               const json& object, TableOptions options = {}) {
  const ResourceInfo* info = R().Find(group, version, plural);
  EXPECT_NE(info, nullptr);
  options.now = Now();
  return RenderTable(*info, {object}, options, "42", "");
}

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

TEST(TableTest, ShapeAndIncludeObject) {
  json pod = Pod({{"phase", "Running"}});
  pod["metadata"]["resourceVersion"] = "42";
  const ResourceInfo& info = *R().Find("", "v1", "pods");
  TableOptions options;
  options.now = Now();
  json table = RenderTable(info, {pod}, options, "42", "tok");
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(table["metadata"], json::parse(R"({"resourceVersion":"42","continue":"tok"})"));
  ASSERT_EQ(table["columnDefinitions"].size(), 9u);
  EXPECT_EQ(table["columnDefinitions"][0]["name"], "Name");
  EXPECT_EQ(table["columnDefinitions"][0]["format"], "name");
  EXPECT_EQ(table["columnDefinitions"][5]["priority"], 1);
  for (const json& c : table["columnDefinitions"]) {
    for (const char* key : {"name", "type", "format", "description", "priority"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
  }
  EXPECT_EQ(table["rows"][0]["object"], json({{"kind", "PartialObjectMetadata"},
                                              {"apiVersion", "meta.k8s.io/v1"},
                                              {"metadata", pod["metadata"]}}));

  options.include_object = "Object";
  options.with_column_definitions = false;
  table = RenderTable(info, {pod}, options, "43", "");
  EXPECT_EQ(table["rows"][0]["object"], pod);
  EXPECT_TRUE(table["columnDefinitions"].empty());
  EXPECT_EQ(table["metadata"], json::parse(R"({"resourceVersion":"43"})"));

  options.include_object = "None";
  table = RenderTable(info, {pod, pod}, options, "44", "");
  ASSERT_EQ(table["rows"].size(), 2u);
  EXPECT_FALSE(table["rows"][0].contains("object"));

  table = RenderTable(info, {}, options, "45", "");
  EXPECT_TRUE(table["rows"].is_array());
  EXPECT_TRUE(table["rows"].empty());
}

TEST(TableTest, VolcanoJob) {
  json job = Created(
      {{"apiVersion", "batch.volcano.sh/v1alpha1"},
       {"kind", "Job"},
       {"metadata", {{"name", "job1"}, {"namespace", "default"}}},
       {"spec", {{"queue", "q1"}, {"minAvailable", 3}}},
       {"status", {{"state", {{"phase", "Running"}}}, {"minAvailable", 3}, {"running", 2}}}},
      3 * 86400 + 4 * 3600);
  json table = RenderOne("batch.volcano.sh", "v1alpha1", "jobs", job);
  EXPECT_EQ(table["rows"][0]["cells"], json({"job1", "Running", 3, 2, "3d4h", "q1"}));
  EXPECT_EQ(table["columnDefinitions"][4]["type"], "date");
  EXPECT_EQ(table["columnDefinitions"][5]["priority"], 1);

  // A fresh job: no status yet, so the status cells are null (kubectl prints them empty).
  json fresh = Created({{"metadata", {{"name", "job2"}}}, {"spec", {{"queue", "default"}}}}, 45);
  EXPECT_EQ(RenderOne("batch.volcano.sh", "v1alpha1", "jobs", fresh)["rows"][0]["cells"],
            json({"job2", nullptr, nullptr, nullptr, "45s", "default"}));

  json bad = fresh;
  bad["metadata"]["creationTimestamp"] = "yesterday";
  EXPECT_EQ(RenderOne("batch.volcano.sh", "v1alpha1", "jobs", bad)["rows"][0]["cells"][4],
            "<invalid>");
}

TEST(TableTest, QueuePodGroupHyperNodeCommand) {
  json queue = Created({{"metadata", {{"name", "q1"}}}, {"spec", {{"parent", "root"}}}}, 10);
  EXPECT_EQ(RenderOne("scheduling.volcano.sh", "v1beta1", "queues", queue)["rows"][0]["cells"],
            json({"q1", "root"}));
  json root = Created({{"metadata", {{"name", "root"}}}, {"spec", {{"weight", 1}}}}, 10);
  EXPECT_EQ(RenderOne("scheduling.volcano.sh", "v1beta1", "queues", root)["rows"][0]["cells"],
            json({"root", nullptr}));

  json pg = Created({{"metadata", {{"name", "pg1"}}},
                     {"spec", {{"minMember", 4}, {"queue", "q1"}}},
                     {"status", {{"phase", "Inqueue"}}}},
                    600);
  EXPECT_EQ(RenderOne("scheduling.volcano.sh", "v1beta1", "podgroups", pg)["rows"][0]["cells"],
            json({"pg1", "Inqueue", 4, nullptr, "10m", "q1"}));

  json hn = Created(
      {{"metadata", {{"name", "s0"}}}, {"spec", {{"tier", 1}}}, {"status", {{"nodeCount", 8}}}},
      7200);
  EXPECT_EQ(RenderOne("topology.volcano.sh", "v1alpha1", "hypernodes", hn)["rows"][0]["cells"],
            json({"s0", "1", nullptr, 8, "120m"}));

  json cmd = Created({{"metadata", {{"name", "c1"}}}, {"action", "AbortJob"}}, 5);
  EXPECT_EQ(RenderOne("bus.volcano.sh", "v1alpha1", "commands", cmd)["rows"][0]["cells"],
            json({"c1", "5s"}));
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

TEST(TableTest, MalformedObjectsDoNotThrow) {
  for (const ResourceInfo& info : R().All()) {
    for (const json& bad : {json(nullptr), json::array(), json("x"),
                            json::parse(R"({"metadata":5,"spec":[],"status":"x"})"),
                            json::parse(R"({"status":{"containerStatuses":[1,null,{"state":7}],
                                "conditions":"no"},"spec":{"containers":3}})")}) {
      TableOptions options;
      options.now = Now();
      EXPECT_NO_THROW(RenderTable(info, {bad}, options, "1", "")) << info.kind;
    }
  }
}

}  // namespace
}  // namespace etna::api::resources
