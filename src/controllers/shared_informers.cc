#include "controllers/shared_informers.h"

namespace etna::controllers {

void SharedInformers::Stop() {
  for (auto& [path, shared] : informers_) shared.informer->Stop();
}

client::Informer* SharedInformers::Get(const std::string& path, client::Informer::Handler handler) {
  auto it = informers_.find(path);
  if (it == informers_.end()) {
    Shared shared;
    shared.transport = factory_();
    client::InformerOptions options;
    options.path = path;
    shared.informer =
        std::make_unique<client::Informer>(shared.transport.get(), std::move(options), nullptr);
    it = informers_.emplace(path, std::move(shared)).first;
  }
  it->second.informer->AddHandler(std::move(handler));
  return it->second.informer.get();
}

}  // namespace etna::controllers
