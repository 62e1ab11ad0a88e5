// The endpoints controller: a Service's Endpoints and EndpointSlices follow the pods it selects
// (ready or not, ports by name, hostnames for headless lookups), hand-written Endpoints are left
// alone, and the svc plugin's headless Service of a Volcano job gets its pods.
#include "controllers/endpoints_controller.h"

#include <gtest/gtest.h>

#include "controllers/endpoints.h"
#include "controllers/job_controller.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using nlohmann::json;

class EndpointsTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    c_ = std::make_unique<EndpointsController>(Options());
    sync_ = [this] { return SyncUntilIdle({c_.get()}); };
  }
  void Pod(const std::string& name, json labels, const std::string& ip, bool ready) {
    json pod = {{"metadata", {{"name", name}, {"labels", labels}}},
                {"spec",
                 {{"hostname", name},
                  {"subdomain", "web"},
                  {"containers",
                   {{{"name", "c"},
                     {"image", "x"},
                     {"ports", {{{"name", "http"}, {"containerPort", 8000}}}}}}}}}};
    MustCreate("pods", "default", pod);
    Bind(name);
    json status = {{"phase", "Running"},
                   {"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}};
    if (!ip.empty()) status["podIP"] = ip;
    ASSERT_TRUE(
        rest()
            .MergePatch(client::Path("pods", "default", name), {{"status", status}}, "status")
            .ok());
  }
  json Service(const std::string& name, json selector) {
    json svc = {{"metadata", {{"name", name}}},
                {"spec",
                 {{"clusterIP", "None"},
                  {"ports", {{{"name", "web"}, {"port", 8000}, {"targetPort", "http"}}}}}}};
    if (!selector.is_null()) svc["spec"]["selector"] = selector;
    return MustCreate("services", "default", svc);
  }
  std::unique_ptr<EndpointsController> c_;
};

TEST_F(EndpointsTest, ReadyAndNotReadyPodsOfTheSelector) {
  Pod("a", {{"app", "web"}}, "10.0.0.1", true);
  Pod("b", {{"app", "web"}}, "10.0.0.2", false);
  Pod("no-ip", {{"app", "web"}}, "", true);
  Pod("other", {{"app", "db"}}, "10.0.0.3", true);
  Service("web", {{"app", "web"}});
  Sync();
  auto ep = Get("endpoints", "default", "web");
  ASSERT_TRUE(ep);
  ASSERT_EQ((*ep)["subsets"].size(), 1u) << ep->dump();
  const json& subset = (*ep)["subsets"][0];
  ASSERT_EQ(subset["addresses"].size(), 1u);
  EXPECT_EQ(subset["addresses"][0]["ip"], "10.0.0.1");
  EXPECT_EQ(subset["addresses"][0]["hostname"], "a");  // its subdomain names the Service
  EXPECT_EQ(subset["addresses"][0]["nodeName"], "n1");
  EXPECT_EQ(subset["addresses"][0]["targetRef"]["name"], "a");
  EXPECT_EQ(subset["notReadyAddresses"][0]["ip"], "10.0.0.2");
  EXPECT_EQ(subset["ports"], json::parse(R"([{"name":"web","port":8000,"protocol":"TCP"}])"));
  EXPECT_EQ((*ep)["metadata"]["labels"]["service.kubernetes.io/headless"], "");
  auto slice = Get("endpointslices", "default", "web");
  ASSERT_TRUE(slice);
  EXPECT_EQ((*slice)["metadata"]["labels"][kServiceNameLabel], "web");
  ASSERT_EQ((*slice)["endpoints"].size(), 2u);
  EXPECT_EQ((*slice)["endpoints"][0]["conditions"]["ready"], true);
  EXPECT_EQ((*slice)["endpoints"][1]["conditions"]["ready"], false);
  EXPECT_EQ((*slice)["ports"][0]["port"], 8000);

  // A pod that leaves the selector leaves the Endpoints; so does a deleted Service.
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("pods", "default", "a"),
                              {{"metadata", {{"labels", {{"app", "gone"}}}}}})
                  .ok());
  Sync();
  EXPECT_FALSE(Get("endpoints", "default", "web")->at("subsets")[0].contains("addresses"));
  ASSERT_TRUE(rest().Delete(client::Path("services", "default", "web")).ok());
  Sync();
  EXPECT_FALSE(Get("endpoints", "default", "web"));
}

TEST_F(EndpointsTest, HandWrittenEndpointsOfAServiceWithoutSelectorStay) {
  Service("external", nullptr);
  MustCreate("endpoints", "default",
             {{"metadata", {{"name", "external"}}},
              {"subsets", {{{"addresses", {{{"ip", "192.0.2.1"}}}}}}}});
  Sync();
  ASSERT_TRUE(rest().Delete(client::Path("services", "default", "external")).ok());
  Sync();
  auto ep = Get("endpoints", "default", "external");
  ASSERT_TRUE(ep);
  EXPECT_EQ((*ep)["subsets"][0]["addresses"][0]["ip"], "192.0.2.1");
}

TEST_F(EndpointsTest, SvcPluginHeadlessServiceResolvesTheJobsPods) {
  JobController jobs(Options());
  sync_ = [&] { return SyncUntilIdle({&jobs, c_.get()}); };
  MustCreate("vcjob", "default",
             testing::Job("train", {testing::Task("chief", 1), testing::Task("worker", 2)},
                          {{"plugins", {{"svc", json::array()}}}}));
  Sync();
  auto svc = Get("services", "default", "train");
  ASSERT_TRUE(svc);
  EXPECT_EQ((*svc)["spec"]["clusterIP"], "None");
  EXPECT_EQ((*svc)["metadata"]["ownerReferences"][0]["kind"], "Job");
  int ip = 1;
  for (auto& [name, pod] : JobPods("train")) {
    Bind(name);
    ASSERT_TRUE(rest()
                    .MergePatch(client::Path("pods", "default", name),
                                {{"status",
                                  {{"phase", "Running"},
                                   {"podIP", "10.0.1." + std::to_string(ip++)},
                                   {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}},
                                "status")
                    .ok());
  }
  Sync();
  auto ep = Get("endpoints", "default", "train");
  ASSERT_TRUE(ep);
  std::set<std::string> hostnames;
  for (const json& a : (*ep)["subsets"][0]["addresses"]) hostnames.insert(a.value("hostname", ""));
  EXPECT_EQ(hostnames,
            (std::set<std::string>{"train-chief-0", "train-worker-0", "train-worker-1"}));
}

}  // namespace
}  // namespace etna::controllers
