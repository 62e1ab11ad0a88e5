#include "api/types/service.h"

#include "api/types/label_selector.h"

namespace etna::api::types {

bool Service::Selects(const Json& pod) const {
  if (!has_selector()) return false;
  // A Service's selector is a plain map: matchLabels alone.
  return SelectorMatches(Json{{"matchLabels", selector()}}, &ObjectView(pod).labels());
}

}  // namespace etna::api::types
