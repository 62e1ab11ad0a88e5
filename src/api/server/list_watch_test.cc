// List (selectors, pages, Table) and watch streams through the REST engine.
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";

json Pod(const std::string& name, const std::string& app, const std::string& node = "") {
  json pod = {{"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

std::vector<std::string> Names(const json& list) {
  std::vector<std::string> out;
  for (const auto& item : list["items"]) out.push_back(item["metadata"]["name"]);
  return out;
}

std::vector<json> Lines(const std::string& text) {
  std::vector<json> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    EXPECT_NE(nl, std::string::npos) << "every event ends with a newline";
    if (nl == std::string::npos) break;
    out.push_back(json::parse(text.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  return out;
}

class ListWatchTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    MustCreate(kPods, Pod("a", "web", "n1"));
    MustCreate(kPods, Pod("b", "db", "n2"));
    MustCreate(kPods, Pod("c", "web", "n2"));
  }
};

TEST_F(ListWatchTest, ListHasKindRevisionAndParsesAsJson) {
  auto r = Do("GET", kPods);
  ASSERT_EQ(r.status, 200);
  json list = r.Json();
  ASSERT_FALSE(list.is_discarded()) << r.body;
  EXPECT_EQ(list["kind"], "PodList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_FALSE(list["metadata"]["resourceVersion"].get<std::string>().empty());
  EXPECT_EQ(Names(list), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(list["items"][0]["metadata"]["resourceVersion"].get<std::string>().empty());
}

TEST_F(ListWatchTest, EmptyListHasAnEmptyItemsArray) {
  auto r = Do("GET", "/api/v1/namespaces/kube-system/pods");
  EXPECT_TRUE(r.Json()["items"].is_array());
}

TEST_F(ListWatchTest, LabelAndFieldSelectorsFilter) {
  EXPECT_EQ(Names(Do("GET", std::string(kPods) + "?labelSelector=app%3Dweb").Json()),
            (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(Names(Do("GET", std::string(kPods) + "?labelSelector=app%20notin%20(web)").Json()),
            (std::vector<std::string>{"b"}));
  EXPECT_EQ(Names(Do("GET", std::string(kPods) + "?fieldSelector=spec.nodeName%3Dn2").Json()),
            (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(
      Names(Do("GET", std::string(kPods) + "?fieldSelector=metadata.name%3Dc,spec.nodeName%3Dn2")
                .Json()),
      (std::vector<std::string>{"c"}));
}

TEST_F(ListWatchTest, BadSelectorsAreBadRequests) {
  EXPECT_EQ(Do("GET", std::string(kPods) + "?labelSelector=app%20in%20(").status, 400);
  auto r = Do("GET", std::string(kPods) + "?fieldSelector=spec.weird%3D1");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.Json()["message"].get<std::string>().find("spec.weird"), std::string::npos);
}

TEST_F(ListWatchTest, LimitAndContinuePageThroughOneRevision) {
  json first = Do("GET", std::string(kPods) + "?limit=2").Json();
  EXPECT_EQ(Names(first), (std::vector<std::string>{"a", "b"}));
  std::string token = first["metadata"]["continue"];
  MustCreate(kPods, Pod("d", "web"));  // after the first page's revision: not in this list
  json second = Do("GET", std::string(kPods) + "?limit=2&continue=" + token).Json();
  EXPECT_EQ(Names(second), (std::vector<std::string>{"c"}));
  EXPECT_FALSE(second["metadata"].contains("continue"));
  EXPECT_EQ(Do("GET", std::string(kPods) + "?continue=garbage").status, 400);
}

TEST_F(ListWatchTest, TableHasPodColumnsAndMetadataObjects) {
  auto r = Do("GET", kPods, "", "", "admin-token", kTableAccept);
  ASSERT_EQ(r.status, 200);
  json table = r.Json();
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["columnDefinitions"][0]["name"], "Name");
  ASSERT_EQ(table["rows"].size(), 3u);
  EXPECT_EQ(table["rows"][0]["cells"][0], "a");
  EXPECT_EQ(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
}

TEST_F(ListWatchTest, WatchFromNowSendsOnlyNewEvents) {
  std::string rv = Do("GET", kPods).Json()["metadata"]["resourceVersion"];
  auto r = Do("GET", std::string(kPods) + "?watch=true&resourceVersion=" + rv);
  ASSERT_EQ(r.status, 200);
  ASSERT_TRUE(r.stream);
  r.stream->Start([] {});
  EXPECT_EQ(Drain(*r.stream), "");
  MustCreate(kPods, Pod("d", "web"));
  ASSERT_EQ(Do("DELETE", std::string(kPods) + "/b?gracePeriodSeconds=0").status, 200);
  auto events = Lines(Drain(*r.stream));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "d");
  EXPECT_EQ(events[1]["type"], "DELETED");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "b");
  EXPECT_GT(std::stoll(events[1]["object"]["metadata"]["resourceVersion"].get<std::string>()),
            std::stoll(events[0]["object"]["metadata"]["resourceVersion"].get<std::string>()));
  r.stream->Cancel();
}

TEST_F(ListWatchTest, WatchWithoutVersionStartsWithTheCurrentMatches) {
  auto r = Do("GET", std::string(kPods) + "?watch=True&fieldSelector=metadata.name%3Dc");
  ASSERT_TRUE(r.stream);
  r.stream->Start([] {});
  auto events = Lines(Drain(*r.stream));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "c");
  Do("PATCH", std::string(kPods) + "/a", R"({"metadata":{"labels":{"x":"y"}}})",
     "application/merge-patch+json");
  Do("PATCH", std::string(kPods) + "/c", R"({"metadata":{"labels":{"x":"y"}}})",
     "application/merge-patch+json");
  events = Lines(Drain(*r.stream));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "MODIFIED");
  EXPECT_EQ(events[0]["object"]["metadata"]["labels"]["x"], "y");
}

TEST_F(ListWatchTest, TableWatchSendsTableRows) {
  std::string rv = Do("GET", kPods).Json()["metadata"]["resourceVersion"];
  auto r = Do("GET", std::string(kPods) + "?watch=true&resourceVersion=" + rv, "", "",
              "admin-token", kTableAccept);
  r.stream->Start([] {});
  MustCreate(kPods, Pod("d", "web"));
  auto events = Lines(Drain(*r.stream));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["object"]["kind"], "Table");
  EXPECT_EQ(events[0]["object"]["rows"][0]["cells"][0], "d");
}

TEST_F(ListWatchTest, WatchFromACompactedRevisionIsExpired) {
  MustCreate(kPods, Pod("d", "web"));
  ASSERT_TRUE(store_.Compact(store_.CurrentRevision() - 1).ok());
  auto r = Do("GET", std::string(kPods) + "?watch=true&resourceVersion=2");
  ASSERT_TRUE(r.stream);
  r.stream->Start([] {});
  bool done = false;
  auto events = Lines(Drain(*r.stream, &done));
  EXPECT_TRUE(done);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
}

TEST_F(ListWatchTest, WatchEndsAtItsTimeout) {
  auto r = Do("GET", std::string(kPods) + "?watch=true&timeoutSeconds=0&resourceVersion=1");
  ASSERT_TRUE(r.stream);
  r.stream->Start([] {});
  bool done = false;
  Drain(*r.stream, &done);
  EXPECT_TRUE(done);
}

TEST_F(ListWatchTest, DeleteCollectionDeletesTheMatches) {
  auto r = Do("DELETE", std::string(kPods) + "?labelSelector=app%3Dweb&gracePeriodSeconds=0");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Names(Do("GET", kPods).Json()), (std::vector<std::string>{"b"}));
}

}  // namespace
}  // namespace etna::api::server
