// InProcessApi: the real REST engine over a MemoryStore in this process, for tests of the
// parts that are clients of the API (scheduler, controllers, agent). Every transport it makes
// is authenticated as a cluster admin.
// Thread-safety: Factory()'s transports and rest() may be used from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <string>

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

  // Answers the next `count` requests whose method is `method` and whose path ends with
  // `path_suffix` with a 409 Conflict, as a write against a stale resourceVersion gets.
  void ConflictNext(std::string method, std::string path_suffix, int count = 1);

 private:
  // Whether a planned conflict applies to `r` (and uses it up).
  bool TakeConflict(const net::http::Request& r);

  std::mutex mu_;
  std::string conflict_method_, conflict_suffix_;
  int conflicts_left_ = 0;
  store::MemoryStore store_;
  api::server::Authenticator authn_;
  api::server::Authorizer authz_;
  std::unique_ptr<api::server::ApiServer> server_;
  std::unique_ptr<Transport> transport_;
  RestClient rest_;
};

}  // namespace etna::client::testing
