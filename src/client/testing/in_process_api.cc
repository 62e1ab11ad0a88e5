#include "client/testing/in_process_api.h"

#include <cstdlib>

namespace etna::client::testing {

InProcessApi::InProcessApi() : rest_(nullptr) {
  auto authn = api::server::Authenticator::FromTokensText("t,admin,1,\"system:masters\"\n", false);
  if (!authn.ok()) std::abort();
  authn_ = std::move(*authn);
  api::server::ApiServerOptions options;
  options.authenticator = &authn_;
  options.authorizer = &authz_;
  server_ = std::make_unique<api::server::ApiServer>(&store_, options);
  if (!server_->Bootstrap().ok()) std::abort();
  transport_ = Factory()();
  rest_ = RestClient(transport_.get());
}

InProcessApi::~InProcessApi() = default;

TransportFactory InProcessApi::Factory() {
  return [this] {
    return MakeInProcessTransport(
        [this](const net::http::Request& r) {
          if (TakeConflict(r)) {
            net::http::Response conflict;
            conflict.status = 409;
            conflict.body =
                R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict",)"
                R"("message":"injected conflict","code":409})";
            return conflict;
          }
          return server_->Handle(r);
        },
        "t");
  };
}

void InProcessApi::ConflictNext(std::string method, std::string path_suffix, int count) {
  std::lock_guard lock(mu_);
  conflict_method_ = std::move(method);
  conflict_suffix_ = std::move(path_suffix);
  conflicts_left_ = count;
}

bool InProcessApi::TakeConflict(const net::http::Request& r) {
  std::lock_guard lock(mu_);
  if (conflicts_left_ == 0 || r.method != conflict_method_ || !r.path.ends_with(conflict_suffix_)) {
    return false;
  }
  --conflicts_left_;
  return true;
}

}  // namespace etna::client::testing
