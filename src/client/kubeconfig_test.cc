#include "client/kubeconfig.h"

#include <gtest/gtest.h>

#include "api/server/data_dir.h"

namespace etna::client {
namespace {

TEST(KubeconfigTest, ReadsTheServersOwnKubeconfig) {
  std::string text =
      api::server::RenderKubeconfig("https://127.0.0.1:6443", "PEM DATA\n", "admin", "tok123");
  auto cfg = ParseKubeconfig(text);
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  EXPECT_EQ(cfg->host, "127.0.0.1");
  EXPECT_EQ(cfg->port, 6443);
  EXPECT_TRUE(cfg->tls);
  EXPECT_EQ(cfg->ca_pem, "PEM DATA\n");
  EXPECT_EQ(cfg->token, "tok123");
  EXPECT_EQ(cfg->ns, "default");
}

TEST(KubeconfigTest, HostForms) {
  auto v6 = ParseKubeconfig(api::server::RenderKubeconfig("https://[::1]:7443", "", "u", "t"));
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 7443);
  auto plain = ParseKubeconfig(api::server::RenderKubeconfig("http://localhost", "", "u", "t"));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->tls);
  EXPECT_EQ(plain->port, 80);
}

TEST(KubeconfigTest, ErrorsNameTheField) {
  EXPECT_NE(ParseKubeconfig("apiVersion: v1\n").status().message().find("current-context"),
            std::string::npos);
  auto bad_port = ParseKubeconfig(api::server::RenderKubeconfig("https://h:99999", "", "u", "t"));
  EXPECT_NE(bad_port.status().message().find("bad port"), std::string::npos);
  auto ftp = ParseKubeconfig(api::server::RenderKubeconfig("ftp://h", "", "u", "t"));
  EXPECT_NE(ftp.status().message().find("http(s)"), std::string::npos);
  EXPECT_FALSE(LoadKubeconfig("/nonexistent/kubeconfig").ok());
}

}  // namespace
}  // namespace etna::client
