// InProcessApi: the real REST engine over a MemoryStore in this process, for tests of the
// parts that are clients of the API (scheduler, controllers, agent). Every transport it makes
// is authenticated as a cluster admin.
// Thread-safety: Factory()'s transports and rest() may be used from any thread.
#pragma once

#include <memory>

#include "api/server/api_server.h"
#include "client/rest.h"
#include "client/transport.h"
#include "store/memory_store.h"

namespace etna::client::testing {

class InProcessApi {
 public:
  InProcessApi();
  ~InProcessApi();

  TransportFactory Factory();
  RestClient& rest() { return rest_; }
  api::server::ApiServer& server() { return *server_; }
  store::MemoryStore& store() { return store_; }

 private:
  store::MemoryStore store_;
  api::server::Authenticator authn_;
  api::server::Authorizer authz_;
  std::unique_ptr<api::server::ApiServer> server_;
  std::unique_ptr<Transport> transport_;
  RestClient rest_;
};

}  // namespace etna::client::testing
