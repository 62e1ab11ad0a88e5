#include "sched/model/labels.h"

#include <algorithm>
#include <charconv>

namespace etna::sched {
namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

bool SelectorRequirement::Matches(const Labels& labels) const {
  auto it = labels.find(key);
  bool has = it != labels.end();
  switch (op) {
    case Op::kIn:
      return has && std::find(values.begin(), values.end(), it->second) != values.end();
    case Op::kNotIn:
      return !has || std::find(values.begin(), values.end(), it->second) == values.end();
    case Op::kExists:
      return has;
    case Op::kDoesNotExist:
      return !has;
    case Op::kGt:
    case Op::kLt: {
      int64_t have = 0, want = 0;
      if (!has || values.size() != 1 || !ParseInt(it->second, &have) ||
          !ParseInt(values[0], &want)) {
        return false;
      }
      return op == Op::kGt ? have > want : have < want;
    }
  }
  return false;
}

bool LabelSelector::Matches(const Labels& labels) const {
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& r : match_expressions) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

bool Toleration::Tolerates(const Taint& taint) const {
  if (!any_effect && effect != taint.effect) return false;
  if (key.empty()) return op == Op::kExists;
  if (key != taint.key) return false;
  return op == Op::kExists || value == taint.value;
}

const char* TaintEffectName(Taint::Effect effect) {
  switch (effect) {
    case Taint::Effect::kNoSchedule:
      return "NoSchedule";
    case Taint::Effect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case Taint::Effect::kNoExecute:
      return "NoExecute";
  }
  return "?";
}

}  // namespace etna::sched
