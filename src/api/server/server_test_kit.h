// Test kit for the REST engine: an ApiServer over a MemoryStore with a fake clock, four
// tokens (admin, alice with write access to team-a, bob with no rules of the YAML file (RBAC
// tests bind him), and the agent of node n1), ServiceAccount
// tokens (team-a's accounts may read its Volcano Jobs), and a Do()
// that builds requests the way the HTTP layer does.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "api/server/api_server.h"
#include "store/memory_store.h"

namespace etna::api::server::testing {

struct Reply {
  int status = 0;
  std::string content_type;
  std::string body;
  std::shared_ptr<net::http::ResponseStream> stream;
  std::vector<std::pair<std::string, std::string>> headers;  // extra: Warning, Retry-After, ...
  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
};

class ServerTest : public ::testing::Test {
 protected:
  ServerTest();
  // (Re)makes the server over the same store, with the operator's metric rules.
  void MakeServer(MetricRules metric_rules = {});
  Reply Do(const std::string& method, const std::string& target, const std::string& body = "",
           const std::string& content_type = "application/json",
           const std::string& token = "admin-token", const std::string& accept = "",
           const std::map<std::string, std::string>& headers = {});  // lower-case names
  // POST of a JSON object; expects 201 and returns the created object.
  nlohmann::json MustCreate(const std::string& collection, const nlohmann::json& object);
  // Drains what a stream has now into one string.
  static std::string Drain(net::http::ResponseStream& stream, bool* done = nullptr);

  FakeClock clock_{1'800'000'000'000};
  store::MemoryStore store_;
  Authenticator authn_;
  Authorizer authz_;
  ServiceAccountTokens sa_tokens_{std::string(64, 'k')};
  // What GET /ui/history serves; tests record samples into it.
  UsageHistory usage_history_;
  // --prometheus-url (set before MakeServer); "": /ui/history serves usage_history_.
  std::string prometheus_url_;
  std::function<net::http::Response(const nlohmann::json&, const LogRequest&)> log_fetcher_;
  // The agents' summaries the metrics APIs read; unset: every agent is unreachable.
  SummaryFetcher summary_fetcher_;
  // The Prometheus the metric rules query; unset: unreachable.
  PrometheusFetcher prometheus_fetcher_;
  std::unique_ptr<ApiServer> server_;
};

}  // namespace etna::api::server::testing
