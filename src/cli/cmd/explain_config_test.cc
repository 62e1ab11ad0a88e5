// `etna explain config`'s output from a published report, and without one.
#include "cli/cmd/explain_config.h"

#include <gtest/gtest.h>

namespace etna::cli {
namespace {

TEST(ExplainConfigTest, PrintsSourceTiersAndEveryKeyOutcome) {
  nlohmann::json report = nlohmann::json::parse(R"({
    "source": "built-in default",
    "seedConfigMap": "volcano-system/volcano-scheduler-config",
    "actions": ["enqueue", "allocate"],
    "tiers": [[{"name": "gang", "arguments": {}}],
              [{"name": "network-topology-aware", "arguments": {"interNodePenalty": "50"}}]],
    "keys": [
      {"key": "priority.conf defaultPriority", "inForce": true, "detail": "priority 1"},
      {"key": "queue.conf queue.plugin[podgroup]", "inForce": false,
       "detail": "etna has no plugin podgroup"}]})");
  EXPECT_EQ(FormatConfigReport(report),
            "Source: built-in default\n"
            "Applied on top: ConfigMap volcano-system/volcano-scheduler-config\n"
            "Actions: enqueue, allocate\n"
            "Tier 0:\n"
            "  gang\n"
            "Tier 1:\n"
            "  network-topology-aware (interNodePenalty=50)\n"
            "Seed ConfigMap keys:\n"
            "  priority.conf defaultPriority: in force: priority 1\n"
            "  queue.conf queue.plugin[podgroup]: ignored: etna has no plugin podgroup\n");
}

TEST(ExplainConfigTest, SaysWhenTheSeedConfigMapIsAbsent) {
  nlohmann::json report = {{"source", "the --conf file"}, {"actions", {"allocate"}}};
  EXPECT_NE(FormatConfigReport(report).find(
                "Seed ConfigMap volcano-system/volcano-scheduler-config: not found"),
            std::string::npos);
}

}  // namespace
}  // namespace etna::cli
