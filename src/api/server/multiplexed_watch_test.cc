// The dashboard's multiplexed watch (GET /ui/watch): several watches in one stream, each
// authorized as its own request.
#include "api/server/multiplexed_watch.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

std::string Encoded(const std::string& target) {
  std::string out;
  for (char c : target) {
    if (c == '?' || c == '&' || c == '=' || c == '/') {
      out += fmt::format("%{:02X}", c);
    } else {
      out += c;
    }
  }
  return out;
}

class MultiplexedWatchTest : public testing::ServerTest {
 protected:
  std::string WatchOf(const std::string& collection) {
    std::string rv = Do("GET", collection).Json()["metadata"]["resourceVersion"];
    return collection + "?watch=true&resourceVersion=" + rv;
  }
  static std::string Target(const std::vector<std::string>& watches) {
    std::string out = "/ui/watch";
    for (size_t i = 0; i < watches.size(); ++i) {
      out += (i == 0 ? "?" : "&") + std::string("watch=") + Encoded(watches[i]);
    }
    return out;
  }
};

TEST_F(MultiplexedWatchTest, EventsOfEachWatchComeTaggedWithItsPosition) {
  auto r = Do("GET", Target({WatchOf(kPods), WatchOf(kConfigMaps)}));
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_TRUE(r.stream);
  r.stream->Start([] {});
  EXPECT_EQ(Drain(*r.stream), "");
  MustCreate(kConfigMaps, {{"metadata", {{"name", "settings"}}}});
  MustCreate(kPods, {{"metadata", {{"name", "p"}}},
                     {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}});
  bool done = false;
  std::string text = Drain(*r.stream, &done);
  EXPECT_FALSE(done);
  // Each watch's events in its own order; the watches' lines may interleave in any order.
  std::map<std::string, std::vector<std::string>> names;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    ASSERT_NE(nl, std::string::npos) << "every line ends with a newline: " << text;
    std::string line = text.substr(pos, nl - pos);
    size_t space = line.find(' ');
    ASSERT_NE(space, std::string::npos) << line;
    json event = json::parse(line.substr(space + 1));
    EXPECT_EQ(event["type"], "ADDED");
    names[line.substr(0, space)].push_back(event["object"]["metadata"]["name"]);
    pos = nl + 1;
  }
  EXPECT_EQ(names,
            (std::map<std::string, std::vector<std::string>>{{"0", {"p"}}, {"1", {"settings"}}}));
}

TEST_F(MultiplexedWatchTest, TheStreamEndsWhenAnyWatchEnds) {
  auto r =
      Do("GET", Target({WatchOf(kPods), std::string(kConfigMaps) +
                                            "?watch=true&timeoutSeconds=0&resourceVersion=1"}));
  ASSERT_EQ(r.status, 200) << r.body;
  r.stream->Start([] {});
  bool done = false;
  Drain(*r.stream, &done);
  EXPECT_TRUE(done);
}

TEST_F(MultiplexedWatchTest, EachWatchIsAuthenticatedAndAuthorized) {
  std::string target = Target({WatchOf(kPods)});
  auto anonymous = Do("GET", target, "", "application/json", "");
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  EXPECT_FALSE(anonymous.stream);
  auto bob = Do("GET", target, "", "application/json", "bob-token");
  EXPECT_EQ(bob.status, 403) << bob.body;
  EXPECT_FALSE(bob.stream);
}

TEST_F(MultiplexedWatchTest, OnlyWatchesOfTheApiAndNotTooMany) {
  auto list = Do("GET", Target({kPods}));
  EXPECT_EQ(list.status, 400);
  EXPECT_NE(list.body.find("watch[0]"), std::string::npos) << list.body;
  auto other = Do("GET", Target({"/ui/watch?watch=x"}));
  EXPECT_EQ(other.status, 400);
  EXPECT_NE(other.body.find("not an API path"), std::string::npos) << other.body;
  EXPECT_EQ(Do("GET", "/ui/watch").status, 400);
  std::vector<std::string> many(kMaxMultiplexedWatches + 1, WatchOf(kPods));
  auto too_many = Do("GET", Target(many));
  EXPECT_EQ(too_many.status, 400);
  EXPECT_NE(too_many.body.find("not 17"), std::string::npos) << too_many.body;
}

}  // namespace
}  // namespace etna::api::server
