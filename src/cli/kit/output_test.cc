#include "cli/kit/output.h"

#include <gtest/gtest.h>

#include "cli/kit/objects.h"

namespace etna::cli {
namespace {

using nlohmann::json;
using std::chrono::seconds;

TEST(ParseSpanTest, DaysWeeksAndGoDurations) {
  using std::chrono::milliseconds;
  EXPECT_EQ(*ParseSpan("since", "7d"), milliseconds(7 * 86400000LL));
  EXPECT_EQ(*ParseSpan("since", "2w"), milliseconds(14 * 86400000LL));
  EXPECT_EQ(*ParseSpan("since", "36h"), milliseconds(36 * 3600000LL));
  EXPECT_EQ(*ParseSpan("since", "0"), milliseconds(0));
  for (const char* bad : {"", "d", "-1d", "1.5d", "7x", "-2h", "7 d", "30"}) {
    auto r = ParseSpan("since", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("invalid --since"), std::string::npos)
        << r.status().message();
  }
}

TEST(HumanAge, MatchesKubectl) {
  EXPECT_EQ(HumanAge(seconds(45)), "45s");
  EXPECT_EQ(HumanAge(seconds(5 * 60 + 30)), "5m30s");
  EXPECT_EQ(HumanAge(seconds(45 * 60)), "45m");
  EXPECT_EQ(HumanAge(seconds(3 * 3600 + 20 * 60)), "3h20m");
  EXPECT_EQ(HumanAge(seconds(20 * 3600)), "20h");
  EXPECT_EQ(HumanAge(seconds(3 * 86400 + 4 * 3600)), "3d4h");
  EXPECT_EQ(HumanAge(seconds(100 * 86400)), "100d");
  EXPECT_EQ(HumanAge(seconds((2 * 365 + 30) * 86400)), "2y30d");
}

TEST(ParseGoDuration, GoSyntaxAndBareSeconds) {
  using std::chrono::milliseconds;
  EXPECT_EQ(*ParseGoDuration("since", "500ms"), milliseconds(500));
  EXPECT_EQ(*ParseGoDuration("since", "30s"), milliseconds(30000));
  EXPECT_EQ(*ParseGoDuration("since", "1h30m"), milliseconds(5400000));
  EXPECT_EQ(*ParseGoDuration("since", "1.5h"), milliseconds(5400000));
  EXPECT_EQ(*ParseGoDuration("timeout", "5"), milliseconds(5000));
  for (const char* bad : {"", "s", "5x", "-1s", "1h5", "1 s", "5d"}) {
    auto r = ParseGoDuration("since", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("invalid --since"), std::string::npos) << bad;
  }
}

TEST(AgeSince, UnknownWhenMissingOrMalformed) {
  auto now = std::chrono::system_clock::now();
  EXPECT_EQ(AgeSince(json(), now), "<unknown>");
  EXPECT_EQ(AgeSince(json("yesterday"), now), "<unknown>");
  auto then = std::chrono::sys_days{std::chrono::year{2025} / 1 / 1};
  EXPECT_EQ(AgeSince(json("2025-01-01T00:00:00Z"), then + seconds(90)), "90s");
}

TEST(TableWriter, ColumnsThreeSpacesApartLastUnpadded) {
  TableWriter t;
  t.AddRow({"NAME", "STATUS", "AGE"});
  t.AddRow({"a-long-name", "Running", "5m"});
  EXPECT_EQ(t.Render(),
            "NAME          STATUS    AGE\n"
            "a-long-name   Running   5m\n");
}

TEST(TableWriter, MinimumWidthSix) {
  TableWriter t;
  t.AddRow({"A", "B"});
  EXPECT_EQ(t.Render(), "A     B\n");
}

json SampleTable() {
  return json::parse(R"({
    "kind":"Table","apiVersion":"meta.k8s.io/v1",
    "columnDefinitions":[{"name":"Name","priority":0},{"name":"Status","priority":0},
                         {"name":"Queue","priority":1}],
    "rows":[{"cells":["j1","Running","q1"],"object":{"metadata":{"namespace":"team-a"}}},
            {"cells":["j2",null,"default"],"object":{"metadata":{"namespace":"default"}}}]})");
}

TEST(AddTableRows, HidesWideColumnsAndPrintsNone) {
  TableWriter t;
  AddTableRows(SampleTable(), /*wide=*/false, /*namespace_column=*/false, true, &t);
  EXPECT_EQ(t.Render(),
            "NAME   STATUS\n"
            "j1     Running\n"
            "j2     <none>\n");
}

TEST(AddTableRows, WideAndAllNamespaces) {
  TableWriter t;
  AddTableRows(SampleTable(), /*wide=*/true, /*namespace_column=*/true, true, &t);
  EXPECT_EQ(t.Render(),
            "NAMESPACE   NAME   STATUS    QUEUE\n"
            "team-a      j1     Running   q1\n"
            "default     j2     <none>    default\n");
}

TEST(AddTableRows, NoHeaders) {
  TableWriter t;
  AddTableRows(SampleTable(), false, false, /*headers=*/false, &t);
  EXPECT_EQ(t.Render(), "j1    Running\nj2    <none>\n");
}

TEST(ToYaml, KubectlStyle) {
  json object = json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","resourceVersion":"7","creationTimestamp":"2025-01-01T00:00:00Z",
                "labels":{"a":"true"}},
    "spec":{"containers":[{"name":"c","args":["-c","echo hi: there"]}],"empty":[],"none":{}},
    "status":{"ready":true,"count":3,"note":null}})");
  EXPECT_EQ(ToYaml(object),
            "apiVersion: v1\n"
            "kind: Pod\n"
            "metadata:\n"
            "  creationTimestamp: \"2025-01-01T00:00:00Z\"\n"
            "  labels:\n"
            "    a: \"true\"\n"
            "  name: p\n"
            "  resourceVersion: \"7\"\n"
            "spec:\n"
            "  containers:\n"
            "  - args:\n"
            "    - \"-c\"\n"
            "    - \"echo hi: there\"\n"
            "    name: c\n"
            "  empty: []\n"
            "  none: {}\n"
            "status:\n"
            "  count: 3\n"
            "  note: null\n"
            "  ready: true\n");
}

TEST(ToJson, FourSpaces) { EXPECT_EQ(ToJson(json{{"a", 1}}), "{\n    \"a\": 1\n}\n"); }

TEST(ApiErrorLine, KubectlForms) {
  EXPECT_EQ(ApiErrorLine(404, R"({"kind":"Status","reason":"NotFound",
              "message":"jobs.batch.volcano.sh \"x\" not found"})"),
            "Error from server (NotFound): jobs.batch.volcano.sh \"x\" not found");
  EXPECT_EQ(
      ApiErrorLine(409, R"({"reason":"AlreadyExists","message":"queues \"q\" already exists"})"),
      "Error from server (AlreadyExists): queues \"q\" already exists");
  EXPECT_EQ(ApiErrorLine(500, R"({"message":"boom"})"), "Error from server: boom");
  EXPECT_EQ(ApiErrorLine(502, "bad gateway\n"), "Error from server: bad gateway");
  EXPECT_EQ(ApiErrorLine(401, "{}"), "error: You must be logged in to the server (Unauthorized)");
}

TEST(Colour, OnlyWhenEnabled) {
  EXPECT_EQ(Colour("x", "red", false), "x");
  EXPECT_EQ(Colour("x", "red", true), "\033[31mx\033[0m");
}

TEST(JsonPath, DottedAndIndexed) {
  json o =
      json::parse(R"({"status":{"state":{"phase":"Running"},"conditions":[{"type":"Ready"}]}})");
  EXPECT_EQ(JsonPathText(JsonPathValue(o, "{.status.state.phase}")), "Running");
  EXPECT_EQ(JsonPathText(JsonPathValue(o, ".status.conditions[0].type")), "Ready");
  EXPECT_TRUE(JsonPathValue(o, ".status.nope").is_null());
}

TEST(ObjectNames, KubectlTypeNames) {
  EXPECT_EQ(ObjectRef(*FindResource("vj"), "x"), "job.batch.volcano.sh/x");
  EXPECT_EQ(ObjectRef(*FindResource("po"), "p"), "pod/p");
  EXPECT_EQ(ResourcePath(*FindResource("queues"), "ignored", "q"),
            "/apis/scheduling.volcano.sh/v1beta1/queues/q");
  EXPECT_EQ(QueryEscape("a=b,c in (d)"), "a%3Db%2Cc%20in%20%28d%29");
}

}  // namespace
}  // namespace etna::cli
