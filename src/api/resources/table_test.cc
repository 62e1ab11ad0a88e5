#include "api/resources/table.h"

#include <gtest/gtest.h>

#include <string>

#include "api/resources/table_test_util.h"

namespace etna::api::resources {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing_util::Created;
using testing_util::Now;
using testing_util::R;
using testing_util::RenderOne;

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

TEST(TableTest, ShapeAndIncludeObject) {
  json pod = Created({{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                      {"spec", {{"containers", {{{"name", "c"}}}}}},
                      {"status", {{"phase", "Running"}}}},
                     60);
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
