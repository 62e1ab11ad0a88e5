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

// Found by src/fuzz/kubeconfig_fuzz.cc: a server with a port but no host was taken, with the
// host "" (or "[]"), and the client then dialled nothing.
TEST(KubeconfigTest, AServerNeedsAHost) {
  for (const char* url : {"http://:1", "https://:6443/", "https://[]:6443", "https://[]"}) {
    auto server = ParseServerUrl(url);
    ASSERT_FALSE(server.ok()) << url << " -> " << server->host;
    EXPECT_NE(server.status().message().find("has no host"), std::string::npos)
        << server.status().message();
  }
  KubeConfig cfg;
  Status set = SetServers(cfg, "https://a:1,http://:2");
  EXPECT_NE(set.message().find("--server: kubeconfig: server \"http://:2\" has no host"),
            std::string::npos)
      << set.message();
  auto parsed = ParseKubeconfig(
      "clusters: [{name: c, cluster: {server: \"https://:6443\"}}]\n"
      "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("has no host"), std::string::npos)
      << parsed.status().message();
}

}  // namespace
}  // namespace etna::client
