#include "net/http/message.h"

#include <algorithm>

#include "net/http/wire.h"

namespace etna::net::http {

std::string Request::Header(std::string_view lower_name) const {
  auto it = headers.find(std::string(lower_name));
  return it == headers.end() ? std::string() : it->second;
}

std::string Request::Query(std::string_view name) const {
  auto it = query.find(std::string(name));
  return it == query.end() ? std::string() : it->second;
}

std::vector<std::string> Request::QueryAll(std::string_view name) const {
  std::vector<std::string> out;
  size_t q = target.find('?');
  if (q == std::string::npos) return out;
  std::string_view rest = std::string_view(target).substr(q + 1);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string part(rest.substr(0, amp));
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    std::replace(part.begin(), part.end(), '+', ' ');
    size_t eq = part.find('=');
    if (internal::PercentDecode(part.substr(0, eq)) != name) continue;
    out.push_back(eq == std::string::npos ? "" : internal::PercentDecode(part.substr(eq + 1)));
  }
  return out;
}

bool Request::HasQuery(std::string_view name) const {
  return query.find(std::string(name)) != query.end();
}

}  // namespace etna::net::http
