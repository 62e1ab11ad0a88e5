#include "agent/runtime/image_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace etna::agent::runtime {
namespace {

namespace fs = std::filesystem;

TEST(ImageRefTest, NormalizesAsDockerDoes) {
  auto bb = ParseImageRef("busybox");
  ASSERT_TRUE(bb.ok());
  EXPECT_EQ(bb->Canonical(), "docker.io/library/busybox:latest");
  EXPECT_EQ(DefaultPullPolicy(*bb), "Always");
  auto torch = ParseImageRef("pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime");
  ASSERT_TRUE(torch.ok());
  EXPECT_EQ(torch->Canonical(), "docker.io/pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime");
  EXPECT_EQ(DefaultPullPolicy(*torch), "IfNotPresent");
  auto local = ParseImageRef("127.0.0.1:5000/team/app:v1");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->registry, "127.0.0.1:5000");
  EXPECT_EQ(local->repository, "team/app");
  auto pinned = ParseImageRef("ghcr.io/x/y@sha256:abc");
  ASSERT_TRUE(pinned.ok());
  EXPECT_EQ(pinned->tag, "");
  EXPECT_EQ(DefaultPullPolicy(*pinned), "IfNotPresent");
  EXPECT_NE(ParseImageRef("").status().message().find("image"), std::string::npos);
  EXPECT_NE(ParseImageRef("Team/App").status().message().find("lower-case"), std::string::npos);
  EXPECT_NE(ParseImageRef("a b").status().message().find("white space"), std::string::npos);
}

TEST(ImageRefTest, ImageConfigFromTheOciConfigBlob) {
  auto c = ParseImageConfig(nlohmann::json::parse(
      R"({"config":{"Entrypoint":["/init"],"Cmd":["serve","--port=80"],
          "Env":["PATH=/usr/bin","A=b=c"],"WorkingDir":"/app","User":"1000:1000"}})"));
  EXPECT_EQ(c.entrypoint, std::vector<std::string>{"/init"});
  EXPECT_EQ(c.cmd, (std::vector<std::string>{"serve", "--port=80"}));
  ASSERT_EQ(c.env.size(), 2u);
  EXPECT_EQ(c.env[1].second, "b=c");
  EXPECT_EQ(c.working_dir, "/app");
  EXPECT_EQ(c.user, "1000:1000");
}

// A store whose skopeo is a script that fails as a registry would.
class ImageStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("etna_images_" + std::to_string(getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    skopeo_ = dir_ + "/skopeo";
    std::ofstream(skopeo_) << "#!/bin/sh\necho \"$@\" >> " << dir_
                           << "/calls\necho 'time=\"x\" level=fatal msg=\"reading manifest 1 in "
                              "r/nope: manifest unknown\"' >&2\nexit 1\n";
    fs::permissions(skopeo_, fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ImageStoreOptions Options() {
    ImageStoreOptions o;
    o.dir = dir_ + "/store";
    o.clock = &clock_;
    o.skopeo = skopeo_;
    o.backoff_initial_ms = 1000;
    o.backoff_max_ms = 4000;
    return o;
  }
  int Calls() {
    std::ifstream in(dir_ + "/calls");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }

  std::string dir_, skopeo_;
  FakeClock clock_;
};

TEST_F(ImageStoreTest, AFailedPullIsErrImagePullThenBackOffThenRetried) {
  ImageStore store(Options());
  std::vector<BackendEvent> events;
  auto s = store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events);
  EXPECT_EQ(s.kind, ImageState::Kind::kPulling);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, "Pulling");
  store.WaitIdle();
  events.clear();
  s = store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events);
  EXPECT_EQ(s.kind, ImageState::Kind::kFailed);
  EXPECT_EQ(s.reason, "ErrImagePull");
  EXPECT_EQ(s.message, "reading manifest 1 in r/nope: manifest unknown");
  s = store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events);
  EXPECT_EQ(s.reason, "ImagePullBackOff");
  EXPECT_NE(s.message.find("manifest unknown"), std::string::npos);
  EXPECT_EQ(Calls(), 1);  // no pull while backing off
  // Other credentials are another try, at once; they are read only for the pull, and what
  // could not be read is named in the failure.
  int reads = 0;
  PullCredentials secret{"default/regcred", [&reads] {
                           ++reads;
                           return PullAuth{R"({"auths":{}})", "secret default/gone: not found"};
                         }};
  s = store.Ensure("127.0.0.1:1/nope:1", "", secret, "run-b", &events);
  EXPECT_EQ(s.kind, ImageState::Kind::kPulling);
  store.WaitIdle();
  EXPECT_EQ(Calls(), 2);
  EXPECT_EQ(reads, 1);
  s = store.Ensure("127.0.0.1:1/nope:1", "", secret, "run-b", &events);
  EXPECT_EQ(s.reason, "ErrImagePull");
  EXPECT_NE(s.message.find("secret default/gone: not found"), std::string::npos) << s.message;
  s = store.Ensure("127.0.0.1:1/nope:1", "", secret, "run-b", &events);
  EXPECT_EQ(reads, 1);   // not read again while backing off
  clock_.Advance(1000);  // the backoff has passed: pulled again
  s = store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events);
  EXPECT_EQ(s.kind, ImageState::Kind::kPulling);
  store.WaitIdle();
  EXPECT_EQ(Calls(), 3);
  // The loopback registry is reached without TLS verification.
  std::ifstream calls(dir_ + "/calls");
  std::string first;
  std::getline(calls, first);
  EXPECT_NE(first.find("--src-tls-verify=false"), std::string::npos) << first;
}

// A back-off counted from a wall-clock time ends when the clock steps back past it, instead of
// an hour later.
TEST_F(ImageStoreTest, ABackOffEndsWhenTheClockStepsBack) {
  ImageStore store(Options());
  std::vector<BackendEvent> events;
  store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events);
  store.WaitIdle();
  auto s = store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events);
  ASSERT_EQ(s.reason, "ErrImagePull");
  EXPECT_EQ(store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events).reason,
            "ImagePullBackOff");
  clock_.Advance(-3'600'000);
  s = store.Ensure("127.0.0.1:1/nope:1", "", {}, "run-a", &events);
  EXPECT_EQ(s.kind, ImageState::Kind::kPulling);
  store.WaitIdle();
  EXPECT_EQ(Calls(), 2);
}

TEST_F(ImageStoreTest, NeverPullsUnderPolicyNeverAndRefusesBadNames) {
  ImageStore store(Options());
  std::vector<BackendEvent> events;
  auto s = store.Ensure("busybox:1", "Never", {}, "run", &events);
  EXPECT_EQ(s.reason, "ErrImageNeverPull");
  s = store.Ensure("Bad Name", "", {}, "run", &events);
  EXPECT_EQ(s.reason, "InvalidImageName");
  s = store.Ensure("busybox:1", "Sometimes", {}, "run", &events);
  EXPECT_EQ(s.reason, "InvalidImagePullPolicy");
  EXPECT_EQ(Calls(), 0);
}

}  // namespace
}  // namespace etna::agent::runtime
