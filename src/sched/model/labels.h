// Labels, label selectors, taints and tolerations: the Kubernetes matching rules the scheduler
// needs, as plain value types.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace etna::sched {

using Labels = std::map<std::string, std::string>;

// One requirement of a label selector or node selector term.
struct SelectorRequirement {
  enum class Op : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  std::string key;
  Op op = Op::kIn;
  std::vector<std::string> values;

  bool Matches(const Labels& labels) const;
};

// metav1.LabelSelector: matchLabels AND matchExpressions. An empty selector matches everything.
struct LabelSelector {
  Labels match_labels;
  std::vector<SelectorRequirement> match_expressions;

  bool Matches(const Labels& labels) const;
  bool empty() const { return match_labels.empty() && match_expressions.empty(); }
};

struct Taint {
  enum class Effect : uint8_t { kNoSchedule, kPreferNoSchedule, kNoExecute };
  std::string key;
  std::string value;
  Effect effect = Effect::kNoSchedule;
};

struct Toleration {
  enum class Op : uint8_t { kEqual, kExists };
  std::string key;  // empty with kExists tolerates every taint
  Op op = Op::kEqual;
  std::string value;
  bool any_effect = true;  // false: only `effect`
  Taint::Effect effect = Taint::Effect::kNoSchedule;

  bool Tolerates(const Taint& taint) const;
};

const char* TaintEffectName(Taint::Effect effect);

}  // namespace etna::sched
