#include "net/http/wire.h"

#include <fmt/format.h>

#include <cctype>

namespace etna::net::http::internal {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void JsonEscapeTo(std::string_view s, std::string* out) {
  for (char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          *out += fmt::format("\\u{:04x}", static_cast<int>(c));
        } else {
          *out += c;
        }
    }
  }
}

}  // namespace

std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = HexValue(s[i + 1]);
      int lo = HexValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

void ParseTarget(std::string_view target, std::string* path,
                 std::map<std::string, std::string>* query) {
  size_t q = target.find('?');
  *path = PercentDecode(target.substr(0, q));
  query->clear();
  if (q == std::string_view::npos) return;
  std::string_view rest = target.substr(q + 1);
  size_t hash = rest.find('#');
  if (hash != std::string_view::npos) rest = rest.substr(0, hash);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view part = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    std::string key = PercentDecode(part.substr(0, eq));
    std::string value =
        eq == std::string_view::npos ? std::string() : PercentDecode(part.substr(eq + 1));
    (*query)[std::move(key)] = std::move(value);
  }
}

std::string StatusJson(int code, std::string_view reason, std::string_view message) {
  std::string out =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")";
  JsonEscapeTo(message, &out);
  out += R"(","reason":")";
  JsonEscapeTo(reason, &out);
  out += fmt::format(R"(","code":{}}})", code);
  return out;
}

Response StatusResponse(int code, std::string_view reason, std::string_view message) {
  Response r;
  r.status = code;
  r.content_type = "application/json";
  r.body = StatusJson(code, reason, message);
  return r;
}

Result<HostPort> ParseHostPort(std::string_view s, std::string_view field) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("{}: {} (want HOST:PORT, e.g. 127.0.0.1:6443), got \"{}\"", field, why, s));
  };
  HostPort hp;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos) return bad("unclosed '['");
    hp.host = std::string(s.substr(1, close - 1));
    if (close + 1 >= s.size() || s[close + 1] != ':') return bad("missing :PORT");
    port = s.substr(close + 2);
  } else {
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos) return bad("missing :PORT");
    hp.host = std::string(s.substr(0, colon));
    if (hp.host.find(':') != std::string::npos) return bad("IPv6 hosts need brackets");
    port = s.substr(colon + 1);
  }
  if (port.empty() || port.size() > 5) return bad("bad port");
  unsigned value = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return bad("bad port");
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > 65535) return bad("port above 65535");
  hp.port = static_cast<uint16_t>(value);
  return hp;
}

}  // namespace etna::net::http::internal
