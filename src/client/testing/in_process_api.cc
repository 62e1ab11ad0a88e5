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
        [this](const api::http::Request& r) { return server_->Handle(r); }, "t");
  };
}

}  // namespace etna::client::testing
