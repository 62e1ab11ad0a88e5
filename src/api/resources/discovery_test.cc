#include "api/resources/discovery.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace etna::api::resources {
namespace {

using nlohmann::json;

const ResourceRegistry& R() { return ResourceRegistry::Default(); }

// The Accept headers kubectl sends on /api and /apis (kubectl-protocol.md §2).
constexpr char kAccept132[] =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
constexpr char kAccept127[] =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
constexpr char kAccept120[] = "application/json, */*";

TEST(DiscoveryTest, AggregatedVersionFollowsAccept) {
  struct Case {
    const char* accept;
    const char* want;
  };
  for (const Case& c : {
           Case{kAccept132, "v2"},
           Case{kAccept127, "v2beta1"},
           Case{kAccept120, ""},
           Case{"", ""},
           Case{"application/json", ""},
           // Order does not matter: v2 wins whenever it is listed.
           Case{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList, "
                "application/json; g=apidiscovery.k8s.io; v=v2; as=APIGroupDiscoveryList",
                "v2"},
           // Protobuf only, a wrong group, a wrong "as", or q=0: not served as aggregated.
           Case{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as="
                "APIGroupDiscoveryList",
                ""},
           Case{"application/json;g=meta.k8s.io;v=v2;as=APIGroupDiscoveryList", ""},
           Case{"application/json;g=apidiscovery.k8s.io;v=v2;as=Table", ""},
           Case{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0", ""},
           Case{"application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", ""},
           Case{";;,,;=", ""},
       }) {
    EXPECT_EQ(AggregatedDiscoveryVersion(c.accept), c.want) << c.accept;
  }
}

TEST(DiscoveryTest, AggregatedContentType) {
  EXPECT_EQ(AggregatedDiscoveryContentType("v2"),
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_EQ(AggregatedDiscoveryContentType("v2beta1"),
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
}

TEST(DiscoveryTest, VersionPicksASupportedKubectlMinor) {
  json v = VersionInfo();
  EXPECT_EQ(v["major"], "1");
  int minor = std::stoi(v["minor"].get<std::string>());
  EXPECT_GE(minor, 27);
  EXPECT_LE(minor, 33);
  EXPECT_EQ(v["gitVersion"], "v1.32.0-etna");
  for (const char* key :
       {"gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"}) {
    EXPECT_TRUE(v[key].is_string()) << key;
  }
}

TEST(DiscoveryTest, ApiVersions) {
  json v = ApiVersions("127.0.0.1:6443");
  EXPECT_EQ(v, json::parse(R"({"kind":"APIVersions","versions":["v1"],
      "serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]})"));
}

TEST(DiscoveryTest, ApiGroupListHasEveryGroupWithPreferredVersion) {
  json list = ApiGroupList(R());
  EXPECT_EQ(list["kind"], "APIGroupList");
  EXPECT_EQ(list["apiVersion"], "v1");
  ASSERT_EQ(list["groups"].size(), R().Groups().size());
  json batch;
  for (const json& g : list["groups"]) {
    if (g["name"] == "batch.volcano.sh") batch = g;
    EXPECT_NE(g["name"], "");
  }
  EXPECT_EQ(batch, json::parse(R"({"name":"batch.volcano.sh",
      "versions":[{"groupVersion":"batch.volcano.sh/v1alpha1","version":"v1alpha1"}],
      "preferredVersion":{"groupVersion":"batch.volcano.sh/v1alpha1","version":"v1alpha1"}})"));
}

TEST(DiscoveryTest, LegacyResourceListForVolcanoJobs) {
  auto list = ApiResourceList(R(), "batch.volcano.sh", "v1alpha1");
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(*list, json::parse(R"({"kind":"APIResourceList","apiVersion":"v1",
      "groupVersion":"batch.volcano.sh/v1alpha1","resources":[
      {"name":"jobs","singularName":"job","namespaced":true,"kind":"Job","shortNames":["vcjob","vj"],
       "verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
      {"name":"jobs/status","singularName":"","namespaced":true,"kind":"Job",
       "verbs":["get","patch","update"]},
      {"name":"cronjobs","singularName":"cronjob","namespaced":true,"kind":"CronJob",
       "shortNames":["cronvcjob","cronvj"],
       "verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
      {"name":"cronjobs/status","singularName":"","namespaced":true,"kind":"CronJob",
       "verbs":["get","patch","update"]}]})"));
}

TEST(DiscoveryTest, LegacyCoreListHasPodSubresources) {
  auto list = ApiResourceList(R(), "", "v1");
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->value("groupVersion", ""), "v1");
  EXPECT_FALSE(list->contains("apiVersion"));
  std::map<std::string, json> by_name;
  for (const json& r : (*list)["resources"]) by_name[r["name"]] = r;
  EXPECT_EQ(by_name["pods"]["categories"], json({"all"}));
  EXPECT_EQ(by_name["nodes"]["namespaced"], false);
  EXPECT_EQ(by_name["pods/log"]["kind"], "Pod");
  EXPECT_EQ(by_name["pods/log"]["verbs"], json({"get"}));
  EXPECT_EQ(by_name["pods/binding"]["kind"], "Binding");
  EXPECT_EQ(by_name["pods/binding"]["verbs"], json({"create"}));
  EXPECT_EQ(by_name["pods/eviction"]["group"], "policy");
  EXPECT_EQ(by_name["pods/eviction"]["version"], "v1");
  EXPECT_EQ(by_name["pods/eviction"]["kind"], "Eviction");
  EXPECT_TRUE(by_name.count("namespaces/status"));
  EXPECT_FALSE(by_name.count("events/status"));
  EXPECT_FALSE(by_name["secrets"].contains("shortNames"));
}

TEST(DiscoveryTest, LegacyResourceListUnknownGroupVersion) {
  EXPECT_FALSE(ApiResourceList(R(), "batch.volcano.sh", "v1").has_value());
  EXPECT_FALSE(ApiResourceList(R(), "nope", "v1").has_value());
  EXPECT_FALSE(ApiResourceList(R(), "", "v2").has_value());
}

TEST(DiscoveryTest, AggregatedQueueMatchesTheObservedDocument) {
  for (const char* version : {"v2", "v2beta1"}) {
    json doc = AggregatedDiscovery(R(), /*core=*/false, version);
    EXPECT_EQ(doc["kind"], "APIGroupDiscoveryList");
    EXPECT_EQ(doc["apiVersion"], std::string("apidiscovery.k8s.io/") + version);
    EXPECT_TRUE(doc["metadata"].is_object());
    json queues;
    for (const json& item : doc["items"]) {
      EXPECT_NE(item["metadata"]["name"], "");
      if (item["metadata"]["name"] != "scheduling.volcano.sh") continue;
      ASSERT_EQ(item["versions"].size(), 1u);
      EXPECT_EQ(item["versions"][0]["version"], "v1beta1");
      EXPECT_EQ(item["versions"][0]["freshness"], "Current");
      for (const json& r : item["versions"][0]["resources"]) {
        if (r["resource"] == "queues") queues = r;
      }
    }
    EXPECT_EQ(queues, json::parse(R"({"resource":"queues","singularResource":"queue",
        "scope":"Cluster","shortNames":["q","queue-v1beta1"],
        "responseKind":{"group":"scheduling.volcano.sh","version":"v1beta1","kind":"Queue"},
        "verbs":["create","delete","deletecollection","get","list","patch","update","watch"],
        "subresources":[{"subresource":"status","verbs":["get","patch","update"],
          "responseKind":{"group":"scheduling.volcano.sh","version":"v1beta1","kind":"Queue"}}]})"));
  }
}

TEST(DiscoveryTest, AggregatedCoreIsOneUnnamedGroup) {
  json doc = AggregatedDiscovery(R(), /*core=*/true, "v2");
  ASSERT_EQ(doc["items"].size(), 1u);
  const json& item = doc["items"][0];
  EXPECT_EQ(item["metadata"]["name"], "");
  EXPECT_EQ(item["versions"][0]["version"], "v1");
  json pods;
  for (const json& r : item["versions"][0]["resources"]) {
    if (r["resource"] == "pods") pods = r;
    if (r["resource"] == "nodes") {
      EXPECT_EQ(r["scope"], "Cluster");
    }
  }
  EXPECT_EQ(pods["scope"], "Namespaced");
  EXPECT_EQ(pods["categories"], json({"all"}));
  EXPECT_EQ(pods["responseKind"], json::parse(R"({"group":"","version":"v1","kind":"Pod"})"));
  std::map<std::string, json> subs;
  for (const json& s : pods["subresources"]) subs[s["subresource"]] = s;
  ASSERT_EQ(subs.size(), 7u);
  EXPECT_EQ(subs["eviction"]["responseKind"],
            json::parse(R"({"group":"policy","version":"v1","kind":"Eviction"})"));
  EXPECT_EQ(subs["binding"]["responseKind"]["kind"], "Binding");
  EXPECT_EQ(subs["log"]["verbs"], json({"get"}));
  EXPECT_EQ(subs["exec"]["verbs"], json({"create", "get"}));
  EXPECT_EQ(subs["exec"]["responseKind"]["kind"], "PodExecOptions");
  EXPECT_EQ(subs["portforward"]["verbs"], json({"create", "get"}));
  EXPECT_EQ(subs["attach"]["responseKind"]["kind"], "PodAttachOptions");
}

TEST(DiscoveryTest, OpenApiIndexListsEveryGroupVersion) {
  json index = OpenApiV3Index(R());
  ASSERT_TRUE(index["paths"].contains("api/v1"));
  for (const std::string& group : R().Groups()) {
    bool stored = false;  // groups of computed views and reviews only have no schema
    for (const ResourceInfo& r : R().All()) stored = stored || (r.group == group && !r.computed);
    if (!stored) continue;
    bool found = false;
    for (const auto& [path, entry] : index["paths"].items()) {
      if (path.rfind("apis/" + group + "/", 0) == 0) found = true;
    }
    EXPECT_TRUE(found) << group;
  }
  const std::string url =
      index["paths"]["apis/batch.volcano.sh/v1alpha1"]["serverRelativeURL"].get<std::string>();
  EXPECT_EQ(url.rfind("/openapi/v3/apis/batch.volcano.sh/v1alpha1?hash=", 0), 0u) << url;
  // Stable across calls; distinct across documents.
  EXPECT_EQ(OpenApiV3Index(R()), index);
  EXPECT_NE(url.substr(url.find("hash=")),
            index["paths"]["api/v1"]["serverRelativeURL"].get<std::string>().substr(
                index["paths"]["api/v1"]["serverRelativeURL"].get<std::string>().find("hash=")));
}

TEST(DiscoveryTest, OpenApiDocumentDeclaresFieldValidationPerKind) {
  auto doc = OpenApiV3Document(R(), "apis/batch.volcano.sh/v1alpha1");
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ((*doc)["components"], json::parse(R"({"schemas":{}})"));
  const json& patch =
      (*doc)["paths"]["/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}"]
            ["patch"];
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"],
            json::parse(R"({"group":"batch.volcano.sh","version":"v1alpha1","kind":"Job"})"));
  ASSERT_EQ(patch["parameters"].size(), 1u);
  EXPECT_EQ(patch["parameters"][0]["name"], "fieldValidation");
  EXPECT_EQ(patch["parameters"][0]["in"], "query");
  const json& content = patch["requestBody"]["content"];
  EXPECT_TRUE(content.contains("application/merge-patch+json"));
  EXPECT_TRUE(content.contains("application/json-patch+json"));
  EXPECT_TRUE(content.contains("application/apply-patch+yaml"));
  EXPECT_FALSE(content.contains("application/strategic-merge-patch+json"));
  EXPECT_EQ(patch["responses"]["200"]["description"], "OK");

  auto core = OpenApiV3Document(R(), "/api/v1");
  ASSERT_TRUE(core.has_value());
  const json& pod = (*core)["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
  EXPECT_TRUE(pod["requestBody"]["content"].contains("application/strategic-merge-patch+json"));
  EXPECT_EQ(pod["x-kubernetes-group-version-kind"]["group"], "");
  EXPECT_TRUE((*core)["paths"].contains("/api/v1/nodes/{name}"));

  auto queues = OpenApiV3Document(R(), "apis/scheduling.volcano.sh/v1beta1");
  ASSERT_TRUE(queues.has_value());
  EXPECT_TRUE((*queues)["paths"].contains("/apis/scheduling.volcano.sh/v1beta1/queues/{name}"));
  EXPECT_EQ((*queues)["paths"].size(), 2u);  // queues, podgroups
}

TEST(DiscoveryTest, OpenApiDocumentUnknownPath) {
  EXPECT_FALSE(OpenApiV3Document(R(), "apis/batch.volcano.sh/v9").has_value());
  EXPECT_FALSE(OpenApiV3Document(R(), "").has_value());
  EXPECT_FALSE(OpenApiV3Document(R(), "apis").has_value());
}

}  // namespace
}  // namespace etna::api::resources
