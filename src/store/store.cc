#include "store/store.h"

#include <algorithm>

namespace etna::store {

const char* EventTypeName(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "UNKNOWN";
}

Result<Revision> Store::Visit(const std::string& prefix, const std::string& continue_after_key,
                              Revision at_revision,
                              const std::function<bool(const KeyValueRef&)>& visit,
                              size_t expected) {
  constexpr size_t kPage = 1000;
  std::string after = continue_after_key;
  Revision at = at_revision;
  size_t page_size = expected == 0 ? kPage : std::min(expected + 1, kPage);
  while (true) {
    ETNA_ASSIGN_OR_RETURN(ListResult page, List(prefix, page_size, after, at));
    page_size = kPage;
    at = page.revision;
    for (const KeyValue& kv : page.items) {
      if (!visit(KeyValueRef{kv.key, kv.value, kv.mod_revision, kv.create_revision})) return at;
    }
    if (page.continue_key.empty()) return at;
    after = page.continue_key;
  }
}

Result<Revision> Store::VisitLabeled(const std::string& prefix,
                                     const std::string& continue_after_key, Revision at_revision,
                                     const std::vector<LabelEquals>& /*only*/,
                                     const std::function<bool(const KeyValueRef&)>& visit,
                                     size_t expected) {
  return Visit(prefix, continue_after_key, at_revision, visit, expected);
}

}  // namespace etna::store
