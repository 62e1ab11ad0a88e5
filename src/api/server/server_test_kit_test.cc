// The kit's implementation lives in a *_test.cc so that it is compiled into the test binary only.
#include "api/server/server_test_kit.h"

namespace etna::api::server::testing {
namespace {

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

ServerTest::ServerTest() {
  authn_ = Authenticator::FromTokensText(
               "admin-token,admin,1,\"system:masters\"\n"
               "alice-token,alice,2\n"
               "bob-token,bob,4\n"
               "node-token,system:node:n1,3,\"system:nodes\"\n",
               false)
               .value();
  authz_ = Authorizer::FromRulesText(
               "- user: alice\n  namespaces: [team-a]\n  resources: ['*']\n  access: write\n"
               "- group: system:serviceaccounts:team-a\n  namespaces: [team-a]\n"
               "  resources: [jobs.batch.volcano.sh]\n  access: read\n")
               .value();
  MakeServer();
}

void ServerTest::MakeServer(MetricRules metric_rules) {
  ApiServerOptions options;
  options.metric_rules = std::move(metric_rules);
  options.prometheus_fetcher = [this](const net::http::PrometheusQuery& q) -> Result<std::string> {
    if (prometheus_fetcher_) return prometheus_fetcher_(q);
    return Status::Unavailable("no prometheus");
  };
  options.authenticator = &authn_;
  options.authorizer = &authz_;
  options.clock = &clock_;
  options.service_account_tokens = &sa_tokens_;
  options.usage_history = &usage_history_;
  options.prometheus_url = prometheus_url_;
  options.log_fetcher = [this](const nlohmann::json& node, const LogRequest& r) {
    if (log_fetcher_) return log_fetcher_(node, r);
    return net::http::Response{};
  };
  options.summary_fetcher = [this](const nlohmann::json& node) -> Result<nlohmann::json> {
    if (summary_fetcher_) return summary_fetcher_(node);
    return Status::Unavailable("no agent");
  };
  server_ = std::make_unique<ApiServer>(&store_, options);
  Status booted = server_->Bootstrap();
  EXPECT_TRUE(booted.ok()) << booted.ToString();
}

Reply ServerTest::Do(const std::string& method, const std::string& target, const std::string& body,
                     const std::string& content_type, const std::string& token,
                     const std::string& accept, const std::map<std::string, std::string>& headers) {
  net::http::Request r;
  r.headers = headers;
  r.method = method;
  r.target = target;
  size_t q = target.find('?');
  r.path = PercentDecode(target.substr(0, q));
  if (q != std::string::npos) {
    std::string query = target.substr(q + 1);
    size_t pos = 0;
    while (pos <= query.size()) {
      size_t amp = query.find('&', pos);
      if (amp == std::string::npos) amp = query.size();
      std::string kv = query.substr(pos, amp - pos);
      size_t eq = kv.find('=');
      if (!kv.empty()) {
        r.query[PercentDecode(kv.substr(0, eq))] =
            eq == std::string::npos ? "" : PercentDecode(kv.substr(eq + 1));
      }
      pos = amp + 1;
    }
  }
  // A token with its own scheme ("bearer x", as the Python client sends it) goes as given.
  if (!token.empty()) {
    r.headers["authorization"] = token.find(' ') == std::string::npos ? "Bearer " + token : token;
  }
  if (!content_type.empty()) r.headers["content-type"] = content_type;
  if (!accept.empty()) r.headers["accept"] = accept;
  r.body = body;
  r.from_loopback = true;
  net::http::Response response = server_->Handle(r);
  return Reply{response.status, response.content_type, response.body, response.stream,
               response.headers};
}

nlohmann::json ServerTest::MustCreate(const std::string& collection, const nlohmann::json& object) {
  Reply r = Do("POST", collection, object.dump());
  EXPECT_EQ(r.status, 201) << r.body;
  return r.Json();
}

std::string ServerTest::Drain(net::http::ResponseStream& stream, bool* done) {
  bool finished = false;
  std::string out = stream.Read(&finished);
  if (done) *done = finished;
  return out;
}

}  // namespace etna::api::server::testing
