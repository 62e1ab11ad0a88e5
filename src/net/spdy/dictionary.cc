// The SPDY/3 header-compression dictionary, a protocol constant: SPDY Protocol Draft 3,
// section 2.6.10.1 "Compression", the same in SPDY/3.1. It is a run of words each preceded by
// its length as a 4-byte big-endian integer, then a run of common values with no lengths.
// Here it is rebuilt from those two parts at compile time; frames_test.cc checks its size
// (1423 bytes) and Adler-32 (0xe3c6a7c2, which is also the DICTID every peer's zlib header names)
// against values computed from the published bytes.
#include <array>
#include <cstddef>
#include <string_view>

#include "net/spdy/frames.h"

namespace etna::net::spdy {
namespace {

using std::string_view_literals::operator""sv;

constexpr std::string_view kWords[] = {
    "options",
    "head",
    "post",
    "put",
    "delete",
    "trace",
    "accept",
    "accept-charset",
    "accept-encoding",
    "accept-language",
    "accept-ranges",
    "age",
    "allow",
    "authorization",
    "cache-control",
    "connection",
    "content-base",
    "content-encoding",
    "content-language",
    "content-length",
    "content-location",
    "content-md5",
    "content-range",
    "content-type",
    "date",
    "etag",
    "expect",
    "expires",
    "from",
    "host",
    "if-match",
    "if-modified-since",
    "if-none-match",
    "if-range",
    "if-unmodified-since",
    "last-modified",
    "location",
    "max-forwards",
    "pragma",
    "proxy-authenticate",
    "proxy-authorization",
    "range",
    "referer",
    "retry-after",
    "server",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "user-agent",
    "vary",
    "via",
    "warning",
    "www-authenticate",
    "method",
    "get",
    "status",
    "200 OK",
    "version",
    "HTTP/1.1",
    "url",
    "public",
    "set-cookie",
    "keep-alive",
    "origin",
};

// Status codes, reason phrases, dates, content types and cache and encoding values, unprefixed.
constexpr std::string_view kTail =
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
    "203 Non-Authoritative Information"
    "204 No Content"
    "301 Moved Permanently"
    "400 Bad Request"
    "401 Unauthorized"
    "403 Forbidden"
    "404 Not Found"
    "500 Internal Server Error"
    "501 Not Implemented"
    "503 Service Unavailable"
    "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 "
    "Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
    "chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,"
    "text/plain,text/javascript,"
    "publicprivatemax-age="
    "gzip,deflate,sdch"
    "charset=utf-8charset=iso-8859-1,utf-,*,enq=0."sv;

constexpr size_t DictionarySize() {
  size_t n = kTail.size();
  for (std::string_view w : kWords) n += 4 + w.size();
  return n;
}

constexpr std::array<char, DictionarySize()> BuildDictionary() {
  std::array<char, DictionarySize()> d{};
  size_t at = 0;
  for (std::string_view w : kWords) {
    const size_t n = w.size();
    d[at++] = static_cast<char>(n >> 24);
    d[at++] = static_cast<char>((n >> 16) & 0xFF);
    d[at++] = static_cast<char>((n >> 8) & 0xFF);
    d[at++] = static_cast<char>(n & 0xFF);
    for (char c : w) d[at++] = c;
  }
  for (char c : kTail) d[at++] = c;
  return d;
}

constexpr std::array<char, DictionarySize()> kDictionary = BuildDictionary();
static_assert(kDictionary.size() == 1423, "the SPDY/3 dictionary is 1423 bytes");

}  // namespace

std::string_view HeaderDictionary() { return {kDictionary.data(), kDictionary.size()}; }

}  // namespace etna::net::spdy
