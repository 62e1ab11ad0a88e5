#include "api/server/stored_object.h"

#include <fmt/format.h>

#include <charconv>
#include <random>

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr std::string_view kMetadataPrefix = "{\"metadata\":{";

std::mt19937_64& ThreadRng() {
  thread_local std::mt19937_64 rng(std::random_device{}() ^
                                   (static_cast<uint64_t>(std::random_device{}()) << 32));
  return rng;
}

}  // namespace

std::string EncodeStored(const json& object) {
  json rest = object;
  json metadata = json::object();
  if (rest.is_object() && rest.contains("metadata") && rest["metadata"].is_object()) {
    metadata = std::move(rest["metadata"]);
    rest.erase("metadata");
  }
  metadata.erase("resourceVersion");
  std::string out = "{\"metadata\":" + metadata.dump();
  std::string tail = rest.dump();  // "{...}" or "{}"
  if (tail.size() > 2) {
    out += ",";
    out.append(tail, 1, std::string::npos);
  } else {
    out += "}";
  }
  return out;
}

std::string WithResourceVersion(std::string_view stored, store::Revision revision) {
  std::string out;
  out.reserve(stored.size() + 32);
  AppendWithResourceVersion(out, stored, revision);
  return out;
}

void AppendWithResourceVersion(std::string& out, std::string_view stored,
                               store::Revision revision) {
  if (stored.substr(0, kMetadataPrefix.size()) != kMetadataPrefix) {
    out.append(stored);  // not our encoding: left as is
    return;
  }
  out.append(kMetadataPrefix);
  fmt::format_to(std::back_inserter(out), "\"resourceVersion\":\"{}\"", revision);
  std::string_view rest = stored.substr(kMetadataPrefix.size());
  if (!rest.empty() && rest.front() != '}') out += ',';
  out.append(rest);
}

Result<json> DecodeStored(std::string_view stored, store::Revision revision) {
  json object = json::parse(stored, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded() || !object.is_object()) {
    return Status::Internal("stored object is not valid JSON");
  }
  object["metadata"]["resourceVersion"] = std::to_string(revision);
  return object;
}

std::string NewUid() {
  std::uniform_int_distribution<uint64_t> dist;
  uint64_t hi = dist(ThreadRng()), lo = dist(ThreadRng());
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff,
                     hi & 0xffff, lo >> 48, lo & 0xffffffffffffULL);
}

std::string GenerateName(std::string_view prefix) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> dist(0, kAlphabet.size() - 1);
  std::string name(prefix);
  for (int i = 0; i < 5; ++i) name += kAlphabet[dist(ThreadRng())];
  return name;
}

store::Revision ResourceVersionOf(const json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return 0;
  auto rv = meta->find("resourceVersion");
  if (rv == meta->end() || rv->is_null()) return 0;
  if (!rv->is_string()) return -1;
  const std::string& s = rv->get_ref<const std::string&>();
  if (s.empty()) return 0;
  store::Revision out = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || p != s.data() + s.size() || out < 0) return -1;
  return out;
}

std::string MetaString(const json& object, const char* field) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto v = meta->find(field);
  if (v == meta->end() || !v->is_string()) return "";
  return v->get<std::string>();
}

}  // namespace etna::api::server
