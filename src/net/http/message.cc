#include "net/http/message.h"

namespace etna::net::http {

std::string Request::Header(std::string_view lower_name) const {
  auto it = headers.find(std::string(lower_name));
  return it == headers.end() ? std::string() : it->second;
}

std::string Request::Query(std::string_view name) const {
  auto it = query.find(std::string(name));
  return it == query.end() ? std::string() : it->second;
}

bool Request::HasQuery(std::string_view name) const {
  return query.find(std::string(name)) != query.end();
}

}  // namespace etna::net::http
