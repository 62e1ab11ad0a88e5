// The warning for a pod whose schedulerName no running scheduler serves: after the grace period,
// named in a Warning Event, judged from the schedulers' fresh kube-system Leases.
#include "controllers/scheduler_names_controller.h"

#include <gtest/gtest.h>

#include "api/types/well_known.h"
#include "client/lease.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using nlohmann::json;

class SchedulerNamesTest : public testing::ControllerTest {
 protected:
  void SetUp() override { c_ = std::make_unique<SchedulerNamesController>(Options()); }
  void Pod(const std::string& name, const std::string& scheduler) {
    json pod = {{"metadata", {{"name", name}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}};
    if (!scheduler.empty()) pod["spec"]["schedulerName"] = scheduler;
    MustCreate("pods", "default", pod);
  }
  std::map<std::string, std::string> Warnings() {
    c_->events().Flush();
    std::map<std::string, std::string> out;  // pod -> message
    for (const json& e : List("events", "default")) {
      if (e.value("reason", "") == "FailedScheduling") {
        out[e["involvedObject"]["name"].get<std::string>()] = e.value("message", "");
      }
    }
    return out;
  }
  std::unique_ptr<SchedulerNamesController> c_;
};

TEST_F(SchedulerNamesTest, APodNoRunningSchedulerServesIsWarnedAbout) {
  ASSERT_TRUE(client::RenewLease(rest(), api::types::kSchedulerLeaseNamespace,
                                 "etna-scheduler.etna.volcano", "s1", 30, clock_.NowMs(),
                                 {{api::types::kSchedulerNamesAnnotation, "volcano,etna"}})
                  .ok());
  Pod("served", "volcano");
  Pod("other", "kai-scheduler");
  Pod("plain", "");  // default-scheduler, which this scheduler does not serve
  ASSERT_TRUE(SyncUntilIdle({c_.get()}));
  EXPECT_TRUE(Warnings().empty());  // within the grace period
  clock_.Advance(16'000);
  ASSERT_TRUE(SyncUntilIdle({c_.get()}));
  auto w = Warnings();
  EXPECT_FALSE(w.count("served"));
  EXPECT_EQ(w["other"],
            "no running scheduler serves schedulerName \"kai-scheduler\" (running schedulers "
            "serve: etna, volcano)");
  EXPECT_NE(w["plain"].find("\"default-scheduler\""), std::string::npos);
  // The scheduler stops renewing: its Lease lapses and nothing serves "volcano" either.
  clock_.Advance(60'000);
  ASSERT_TRUE(SyncUntilIdle({c_.get()}));
  EXPECT_EQ(Warnings()["served"],
            "no running scheduler serves schedulerName \"volcano\" (none is running)");
}

}  // namespace
}  // namespace etna::controllers
