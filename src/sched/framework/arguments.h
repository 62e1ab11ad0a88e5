// Arguments: the `arguments:` map of one plugin (or action) in the scheduler configuration.
//
// Values are kept as the strings the YAML held. Typed getters parse on demand and record which
// keys were read, so after a plugin has been built the framework reports every key it did not
// read as an unknown argument, naming it. Not thread-safe; each plugin instance owns a copy.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/strings.h"

namespace etna::sched {

class Arguments {
 public:
  Arguments() = default;
  explicit Arguments(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  void Set(const std::string& key, std::string value) { values_[key] = std::move(value); }
  bool Has(const std::string& key) const { return values_.count(key) > 0; }

  // Each getter leaves *out unchanged when the key is absent and fails naming the key when the
  // value does not parse.
  Status GetInt(const std::string& key, int64_t* out);
  Status GetDouble(const std::string& key, double* out);
  Status GetBool(const std::string& key, bool* out);
  Status GetString(const std::string& key, std::string* out);
  // A Go-style duration ("90s", "5m", "1h30m", "250ms") or a plain number of seconds.
  Status GetDurationMs(const std::string& key, int64_t* out);
  // Keys that start with `prefix`, marked as read.
  std::vector<std::string> KeysWithPrefix(const std::string& prefix);

  // Keys no getter has read.
  std::vector<std::string> Unread() const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> read_;
};

// SplitCommaList (common/strings.h) splits the configuration file's comma lists.
using ::etna::SplitCommaList;

// A non-negative duration in common/time.h's grammar (Go's, or bare seconds "30"), in whole
// milliseconds rounded up ("500us" is 1). Errors name the text. For other configuration readers.
Result<int64_t> ParseDurationMs(const std::string& text);

}  // namespace etna::sched
