#include "cli/kit/objects.h"

#include <gtest/gtest.h>

namespace etna::cli {
namespace {

using nlohmann::json;

TEST(ThreeWayMergePatch, RemovesWhatTheLastManifestHadAndThisOneLacks) {
  json original = json::parse(R"({"spec":{"weight":4,"capability":{"nvidia.com/gpu":"8"}}})");
  json modified = json::parse(R"({"spec":{"weight":4}})");
  json live = json::parse(
      R"({"spec":{"weight":4,"capability":{"nvidia.com/gpu":"8"},"reclaimable":true},
          "status":{"state":"Open"}})");
  EXPECT_EQ(ThreeWayMergePatch(original, modified, live),
            json::parse(R"({"spec":{"capability":null}})"));
}

TEST(ThreeWayMergePatch, SendsOnlyWhatDiffersFromTheLiveObject) {
  json manifest = json::parse(R"({"metadata":{"name":"q","labels":{"a":"1"}},
                                  "spec":{"weight":5,"list":[1,2]}})");
  json live = json::parse(R"({"metadata":{"name":"q","uid":"u","labels":{"a":"1"}},
                              "spec":{"weight":4,"list":[1]}})");
  EXPECT_EQ(ThreeWayMergePatch(manifest, manifest, live),
            json::parse(R"({"spec":{"weight":5,"list":[1,2]}})"));
  // Applied before, unchanged since: nothing to send. Without a last applied one, no deletions.
  json same = json::parse(R"({"metadata":{"name":"q","uid":"u","labels":{"a":"1"}},
                              "spec":{"weight":5,"list":[1,2]}})");
  EXPECT_TRUE(ThreeWayMergePatch(manifest, manifest, same).empty());
  json fewer = json::parse(R"({"metadata":{"name":"q"},"spec":{"weight":5,"list":[1,2]}})");
  EXPECT_TRUE(ThreeWayMergePatch(nullptr, fewer, same).empty());
  EXPECT_EQ(ThreeWayMergePatch(manifest, fewer, same),
            json::parse(R"({"metadata":{"labels":null}})"));
}

}  // namespace
}  // namespace etna::cli
