#include "store/keys.h"

#include <fmt/format.h>

namespace etna::store {

std::string ObjectKey(std::string_view resource, std::string_view ns, std::string_view name) {
  return fmt::format("/{}/{}/{}", resource, ns, name);
}

std::string ClusterKey(std::string_view resource, std::string_view name) {
  return fmt::format("/{}/{}", resource, name);
}

std::string ResourcePrefix(std::string_view resource, std::string_view ns) {
  if (ns.empty()) return fmt::format("/{}/", resource);
  return fmt::format("/{}/{}/", resource, ns);
}

Status ValidateKey(std::string_view key) {
  constexpr size_t kMaxKeyBytes = 4096;
  if (key.empty() || key[0] != '/') {
    return Status::InvalidArgument(fmt::format("store key \"{}\" must start with '/'", key));
  }
  if (key.size() > kMaxKeyBytes) {
    return Status::InvalidArgument(
        fmt::format("store key is {} bytes, the limit is {}", key.size(), kMaxKeyBytes));
  }
  if (key.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("store key holds a NUL byte");
  }
  return Status::Ok();
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto last = static_cast<unsigned char>(end.back());
    if (last != 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return end;
}

std::string ListStart(std::string_view prefix, std::string_view continue_after) {
  if (continue_after.empty()) return std::string(prefix);
  std::string after(continue_after);
  after.push_back('\0');  // the smallest key greater than continue_after
  return after > prefix ? after : std::string(prefix);
}

bool HasPrefix(std::string_view key, std::string_view prefix) {
  return key.substr(0, prefix.size()) == prefix;
}

}  // namespace etna::store
