// flow.volcano.sh JobTemplate and JobFlow: served with Volcano's short names, and their
// `kubectl get` tables as Volcano's CRDs declare them.
#include <gtest/gtest.h>

#include "api/resources/table_test_util.h"

namespace etna::api::resources {
namespace {

using nlohmann::json;
using testing_util::Created;
using testing_util::R;
using testing_util::RenderOne;

std::vector<std::string> ColumnNames(const json& table) {
  std::vector<std::string> out;
  for (const json& c : table["columnDefinitions"]) out.push_back(c["name"]);
  return out;
}

TEST(FlowResources, ServedWithVolcanosNames) {
  const ResourceInfo* jt = R().FindByName("jt");
  ASSERT_NE(jt, nullptr);
  EXPECT_EQ(jt->kind, "JobTemplate");
  EXPECT_EQ(jt->QualifiedPlural(), "jobtemplates.flow.volcano.sh");
  EXPECT_TRUE(jt->namespaced);
  EXPECT_TRUE(jt->has_status);
  const ResourceInfo* jf = R().FindByName("jf");
  ASSERT_NE(jf, nullptr);
  EXPECT_EQ(jf->kind, "JobFlow");
  EXPECT_EQ(jf->GroupVersion(), "flow.volcano.sh/v1alpha1");
  EXPECT_EQ(R().FindByName("jobflows.flow.volcano.sh"), jf);
}

TEST(FlowResources, Tables) {
  json jf = Created(
      {{"metadata", {{"name", "test"}}}, {"status", {{"state", {{"phase", "Running"}}}}}}, 90);
  json table = RenderOne("flow.volcano.sh", "v1alpha1", "jobflows", jf);
  EXPECT_EQ(ColumnNames(table), (std::vector<std::string>{"Name", "Status", "Age"}));
  EXPECT_EQ(table["rows"][0]["cells"], json({"test", "Running", "90s"}));
  json fresh = Created({{"metadata", {{"name", "new"}}}}, 5);
  EXPECT_EQ(RenderOne("flow.volcano.sh", "v1alpha1", "jobflows", fresh)["rows"][0]["cells"],
            json({"new", nullptr, "5s"}));

  json jt = Created({{"metadata", {{"name", "a"}}}, {"spec", {{"queue", "default"}}}}, 7200);
  json jt_table = RenderOne("flow.volcano.sh", "v1alpha1", "jobtemplates", jt);
  EXPECT_EQ(ColumnNames(jt_table), (std::vector<std::string>{"Name", "Age"}));
  EXPECT_EQ(jt_table["rows"][0]["cells"], json({"a", "120m"}));
}

}  // namespace
}  // namespace etna::api::resources
