#include "client/rest.h"

#include <gtest/gtest.h>

#include "client/testing/in_process_api.h"

namespace etna::client {
namespace {

using nlohmann::json;

TEST(RestPathTest, NamesEveryKindOfPath) {
  EXPECT_EQ(Path("pods", "default", "a"), "/api/v1/namespaces/default/pods/a");
  EXPECT_EQ(Path("pods"), "/api/v1/pods");
  EXPECT_EQ(Path("nodes", "ignored", "n1"), "/api/v1/nodes/n1");
  EXPECT_EQ(Path("jobs.batch.volcano.sh", "ns"),
            "/apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs");
  EXPECT_EQ(Path("queues", "", "q"), "/apis/scheduling.volcano.sh/v1beta1/queues/q");
  EXPECT_EQ(Path("leases", "kube-node-lease", "n"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n");
}

TEST(RestClientTest, CrudBindAndErrors) {
  testing::InProcessApi api;
  RestClient& rest = api.rest();
  json pod = {{"metadata", {{"name", "a"}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  ASSERT_TRUE(rest.Create(Path("pods", "default"), pod).ok());
  auto again = rest.Create(Path("pods", "default"), pod);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(rest.Get(Path("pods", "default", "b")).status().code(), StatusCode::kNotFound);
  json node = {{"metadata", {{"name", "n1"}}}};
  ASSERT_TRUE(rest.Create(Path("nodes"), node).ok());
  ASSERT_TRUE(rest.Bind("default", "a", "n1", {{"etna.io/gpu-ids", "0"}}).ok());
  EXPECT_EQ(rest.Bind("default", "a", "n1").code(), StatusCode::kConflict);
  auto got = rest.Get(Path("pods", "default", "a"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["spec"]["nodeName"], "n1");
  EXPECT_EQ((*got)["metadata"]["annotations"]["etna.io/gpu-ids"], "0");
  auto patched =
      rest.MergePatch(Path("pods", "default", "a"), {{"status", {{"phase", "Running"}}}}, "status");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)["status"]["phase"], "Running");
  auto list = rest.List(Path("pods"), "fieldSelector=spec.nodeName%3Dn1");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 1u);
  auto bad = rest.Create(Path("pods", "default"), json{{"metadata", {{"name", "x"}}}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("spec"), std::string::npos) << bad.status().message();
  ASSERT_TRUE(rest.Delete(Path("pods", "default", "a"), 0).ok());
  EXPECT_EQ(rest.Get(Path("pods", "default", "a")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace etna::client
