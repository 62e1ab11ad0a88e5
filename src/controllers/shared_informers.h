// SharedInformers: one informer per collection for all the controllers of a process (client-go's
// SharedInformerFactory). The job, podgroup and node controllers all read pods; each holding its
// own informer kept three caches of every pod and decoded every pod event three times. A
// controller given this registry (ControllerOptions::informers) adds its handler to the shared
// informer of a path instead; each event reaches every handler, in the order they were added.
// Handlers are added while the controllers are made, before any starts.
// Thread-safety: Get from the owner thread before Start; the informers as client::Informer.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/informer.h"
#include "client/transport.h"

namespace etna::controllers {

class SharedInformers {
 public:
  explicit SharedInformers(client::TransportFactory factory) : factory_(std::move(factory)) {}
  ~SharedInformers() { Stop(); }
  SharedInformers(const SharedInformers&) = delete;
  SharedInformers& operator=(const SharedInformers&) = delete;

  // The informer of `path`, made on first use (on its own transport), with `handler` added.
  client::Informer* Get(const std::string& path, client::Informer::Handler handler);
  size_t size() const { return informers_.size(); }
  // Stops every informer: after the controllers whose handlers they call have stopped, before
  // those are destroyed.
  void Stop();

 private:
  struct Shared {
    std::unique_ptr<client::Transport> transport;
    std::unique_ptr<client::Informer> informer;
  };
  client::TransportFactory factory_;
  std::map<std::string, Shared> informers_;
};

}  // namespace etna::controllers
