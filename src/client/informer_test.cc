// Informers against the real REST engine: in process, and over HTTPS.
#include "client/informer.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "api/server/api_server.h"
#include "api/server/data_dir.h"
#include "net/http/server.h"
#include "store/memory_store.h"

namespace etna::client {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Collects the events an informer delivers and lets the test wait for one.
class Events {
 public:
  Informer::Handler Handler() {
    return [this](const std::string& type, const json& object) {
      std::lock_guard lock(mu_);
      seen_.push_back(type + " " + object["metadata"]["name"].get<std::string>());
      cv_.notify_all();
    };
  }
  bool WaitFor(const std::string& event) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(
        lock, 10s, [&] { return std::find(seen_.begin(), seen_.end(), event) != seen_.end(); });
  }
  std::vector<std::string> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> seen_;
};

class InformerTest : public ::testing::Test {
 protected:
  InformerTest() {
    authn_ =
        api::server::Authenticator::FromTokensText("t,admin,1,\"system:masters\"\n", false).value();
    api::server::ApiServerOptions options;
    options.authenticator = &authn_;
    options.authorizer = &authz_;
    server_ = std::make_unique<api::server::ApiServer>(&store_, options);
    EXPECT_TRUE(server_->Bootstrap().ok());
    transport_ = MakeInProcessTransport(
        [this](const net::http::Request& r) { return server_->Handle(r); }, "t");
  }
  void CreatePod(Transport& t, const std::string& name) {
    json pod = {{"metadata", {{"name", name}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
    auto r = t.Do("POST", "/api/v1/namespaces/default/pods", pod.dump());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 201) << r->body;
  }
  void DeletePod(Transport& t, const std::string& name) {
    auto r = t.Do("DELETE", "/api/v1/namespaces/default/pods/" + name);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }

  store::MemoryStore store_;
  api::server::Authenticator authn_;
  api::server::Authorizer authz_;
  std::unique_ptr<api::server::ApiServer> server_;
  std::unique_ptr<Transport> transport_;
};

TEST_F(InformerTest, ListsThenFollowsChanges) {
  CreatePod(*transport_, "a");
  CreatePod(*transport_, "b");
  Events events;
  Informer informer(transport_.get(), {"/api/v1/namespaces/default/pods"}, events.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(10s));
  EXPECT_EQ(informer.List().size(), 2u);
  CreatePod(*transport_, "c");
  ASSERT_TRUE(events.WaitFor("ADDED c"));
  DeletePod(*transport_, "a");
  ASSERT_TRUE(events.WaitFor("DELETED a"));
  EXPECT_FALSE(informer.Get("default", "a"));
  EXPECT_TRUE(informer.Get("default", "c"));
  EXPECT_EQ(events.seen(),
            (std::vector<std::string>{"ADDED a", "ADDED b", "ADDED c", "DELETED a"}));
  EXPECT_EQ(informer.lists(), 1);
  std::vector<std::string> visited;  // ForEach reads the same cache, in key order, uncopied
  informer.ForEach(
      [&](const nlohmann::json& pod) { visited.push_back(pod["metadata"].value("name", "")); });
  EXPECT_EQ(visited, (std::vector<std::string>{"b", "c"}));
}

// Shared by several readers: each added handler sees the first list and every event, and a
// second Start is a no-op (each controller of a process starts the informers it reads).
TEST_F(InformerTest, EveryAddedHandlerSeesTheListAndTheEvents) {
  CreatePod(*transport_, "a");
  Events first, second;
  Informer informer(transport_.get(), {"/api/v1/namespaces/default/pods"}, first.Handler());
  informer.AddHandler(second.Handler());
  informer.Start();
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(10s));
  CreatePod(*transport_, "b");
  ASSERT_TRUE(first.WaitFor("ADDED b"));
  ASSERT_TRUE(second.WaitFor("ADDED b"));
  EXPECT_EQ(first.seen(), (std::vector<std::string>{"ADDED a", "ADDED b"}));
  EXPECT_EQ(second.seen(), first.seen());
  EXPECT_EQ(informer.lists(), 1);
}

TEST_F(InformerTest, ExpiredWatchRelistsAndDeliversTheDifference) {
  CreatePod(*transport_, "a");
  CreatePod(*transport_, "b");
  Events events;
  Informer informer(transport_.get(), {"/api/v1/namespaces/default/pods"}, events.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(10s));
  informer.Stop();
  // While it is away: b goes, c comes, and the history is compacted.
  DeletePod(*transport_, "b");
  CreatePod(*transport_, "c");
  ASSERT_TRUE(store_.Compact(store_.CurrentRevision()).ok());
  informer.Start();
  ASSERT_TRUE(events.WaitFor("ADDED c"));
  ASSERT_TRUE(events.WaitFor("DELETED b"));
  EXPECT_EQ(informer.lists(), 2);
  EXPECT_TRUE(informer.Get("default", "a"));
  EXPECT_FALSE(informer.Get("default", "b"));
}

// cache_objects = false (the scheduler keeps its own records): the cache holds metadata only,
// and a relist still tells a deletion, and an unchanged object not at all.
TEST_F(InformerTest, MetadataOnlyCacheStillRelistsTheDifference) {
  CreatePod(*transport_, "a");
  CreatePod(*transport_, "b");
  Events events;
  InformerOptions options{"/api/v1/namespaces/default/pods"};
  options.cache_objects = false;
  Informer informer(transport_.get(), options, events.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(10s));
  auto a = informer.Get("default", "a");
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->contains("spec")) << a->dump();
  EXPECT_EQ((*a)["metadata"].value("name", ""), "a");
  EXPECT_FALSE((*a)["metadata"].value("uid", "").empty()) << a->dump();
  informer.Stop();
  DeletePod(*transport_, "b");
  ASSERT_TRUE(store_.Compact(store_.CurrentRevision()).ok());
  informer.Start();
  ASSERT_TRUE(events.WaitFor("DELETED b"));
  EXPECT_EQ(informer.lists(), 2);
  EXPECT_EQ(events.seen(), (std::vector<std::string>{"ADDED a", "ADDED b", "DELETED b"}));
}

TEST_F(InformerTest, WorksOverHttpsWithTheServersKubeconfig) {
  auto dir = std::filesystem::temp_directory_path() / ("etna-informer-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  auto certs = api::server::PrepareDataDir(dir.string(), "127.0.0.1", 0, true);
  ASSERT_TRUE(certs.ok()) << certs.status().ToString();
  net::http::ServerOptions http_options;
  http_options.listen = "127.0.0.1:0";
  http_options.tls = certs->certificates.serving;
  net::http::HttpServer http(http_options,
                             [this](const net::http::Request& r) { return server_->Handle(r); });
  ASSERT_TRUE(http.Start().ok());
  KubeConfig config;
  config.host = "127.0.0.1";
  config.port = http.port();
  config.ca_pem = [&] {
    std::ifstream in(certs->certificates.ca_file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  config.token = "t";
  auto transport = MakeHttpTransport(config);
  CreatePod(*transport, "a");
  Events events;
  Informer informer(transport.get(), {"/api/v1/namespaces/default/pods"}, events.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(10s));
  CreatePod(*transport, "b");
  EXPECT_TRUE(events.WaitFor("ADDED b"));
  informer.Stop();  // cancels the open watch
  http.Stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace etna::client
