// The data dir's certificates, tokens and kubeconfig.
#include "api/server/data_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "common/file.h"

namespace etna::api::server {
namespace {

int Mode(const std::string& path) {
  struct stat st {};
  stat(path.c_str(), &st);
  return st.st_mode & 0777;
}

class DataDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("etna-data-dir-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(DataDirTest, FirstStartMakesCertificatesTokenAndKubeconfig) {
  auto files = PrepareDataDir(dir_.string(), "127.0.0.1", 6443, true);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(files->certificates.ca_file));
  EXPECT_TRUE(std::filesystem::exists(files->certificates.serving.cert_file));
  EXPECT_EQ(Mode(files->certificates.serving.key_file), 0600);
  EXPECT_EQ(Mode(files->tokens_file), 0600);
  EXPECT_EQ(Mode(files->kubeconfig), 0600);
  std::string tokens = *ReadFile(files->tokens_file);
  EXPECT_EQ(tokens, files->admin_token + ",admin,admin,\"system:masters\"\n");
  EXPECT_GE(files->admin_token.size(), 32u);
  std::string kubeconfig = *ReadFile(files->kubeconfig);
  EXPECT_NE(kubeconfig.find("server: https://127.0.0.1:6443\n"), std::string::npos);
  EXPECT_NE(kubeconfig.find("certificate-authority-data: "), std::string::npos);
  EXPECT_NE(kubeconfig.find("token: " + files->admin_token + "\n"), std::string::npos);
}

TEST_F(DataDirTest, RestartKeepsTheTokenAndCaAndUpdatesThePort) {
  auto first = PrepareDataDir(dir_.string(), "0.0.0.0", 6443, true);
  ASSERT_TRUE(first.ok());
  std::string ca = *ReadFile(first->certificates.ca_file);
  auto second = PrepareDataDir(dir_.string(), "0.0.0.0", 7443, true);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->admin_token, first->admin_token);
  EXPECT_EQ(*ReadFile(second->certificates.ca_file), ca);
  EXPECT_NE(ReadFile(second->kubeconfig)->find("server: https://127.0.0.1:7443\n"),
            std::string::npos);
}

TEST_F(DataDirTest, PlainHttpKubeconfigHasNoCa) {
  auto files = PrepareDataDir(dir_.string(), "127.0.0.1", 8080, false);
  ASSERT_TRUE(files.ok());
  std::string kubeconfig = *ReadFile(files->kubeconfig);
  EXPECT_NE(kubeconfig.find("server: http://127.0.0.1:8080\n"), std::string::npos);
  EXPECT_EQ(kubeconfig.find("certificate-authority-data"), std::string::npos);
}

TEST(DataDirErrorsTest, UnwritableDirIsAnError) {
  auto files = PrepareDataDir("/proc/etna-cannot-write-here", "127.0.0.1", 1, true);
  EXPECT_FALSE(files.ok());
}

}  // namespace
}  // namespace etna::api::server
