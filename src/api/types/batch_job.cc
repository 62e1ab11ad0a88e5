#include "api/types/batch_job.h"

#include <fmt/format.h>

#include <charconv>

namespace etna::api::types {

namespace {

bool ParseIndex(std::string_view text, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out >= 0;
}

// Above any Indexed Job's completions (admission allows 100,000).
constexpr int64_t kMaxIndexes = 1'000'000;

}  // namespace

std::optional<int64_t> BatchJob::completions() const {
  return IntegerIfSet(json(), {"spec", "completions"});
}
std::optional<int64_t> BatchJob::active_deadline_seconds() const {
  return IntegerIfSet(json(), {"spec", "activeDeadlineSeconds"});
}
std::optional<int64_t> BatchJob::ttl_seconds_after_finished() const {
  return IntegerIfSet(json(), {"spec", "ttlSecondsAfterFinished"});
}
bool BatchJob::suspended() const { return Bool(json(), {"spec", "suspend"}); }

const Json* BatchJob::FinishedCondition() const {
  for (const char* type : {"Complete", "Failed"}) {
    const Json* c = FindCondition(json(), {"status", "conditions"}, type);
    if (c != nullptr && String(*c, {"status"}) == "True") return c;
  }
  return nullptr;
}

bool CronJob::suspended() const { return Bool(json(), {"spec", "suspend"}); }
std::optional<int64_t> CronJob::starting_deadline_seconds() const {
  return IntegerIfSet(json(), {"spec", "startingDeadlineSeconds"});
}

std::optional<std::set<int64_t>> ParseIndexIntervals(const std::string& text) {
  std::set<int64_t> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    size_t dash = part.find('-');
    int64_t first = 0, last = 0;
    if (dash == std::string_view::npos) {
      if (!ParseIndex(part, &first)) return std::nullopt;
      last = first;
    } else if (!ParseIndex(part.substr(0, dash), &first) ||
               !ParseIndex(part.substr(dash + 1), &last) || last < first) {
      return std::nullopt;
    }
    if (last >= kMaxIndexes) return std::nullopt;
    for (int64_t i = first; i <= last; ++i) out.insert(i);
  }
  return out;
}

std::string FormatIndexIntervals(const std::set<int64_t>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    int64_t first = *it, last = *it;
    for (++it; it != indexes.end() && *it == last + 1; ++it) last = *it;
    if (!out.empty()) out += ',';
    out += first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
  }
  return out;
}

}  // namespace etna::api::types
