#include "controllers/hpa_behavior.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace etna::controllers {
namespace {

constexpr TimeMs kMaxPeriodMs = 1800'000;  // the API's limit on periodSeconds

}  // namespace

int32_t HpaScalingHistory::ChangeSince(const std::deque<Change>& events, TimeMs cutoff) const {
  int32_t sum = 0;
  for (const Change& c : events) {
    if (c.at > cutoff) sum += c.replicas;
  }
  return sum;
}

int32_t HpaScalingHistory::ScaleUpLimit(const api::types::HpaScalingRules& rules, int32_t current,
                                        TimeMs now) const {
  if (rules.select_policy == "Disabled") return current;
  bool min = rules.select_policy == "Min";
  int32_t result = min ? INT32_MAX : INT32_MIN;
  for (const auto& p : rules.policies) {
    TimeMs cutoff = now - TimeMs{p.period_seconds} * 1000;
    int32_t start = current - ChangeSince(ups_, cutoff) + ChangeSince(downs_, cutoff);
    int32_t proposed =
        p.type == "Pods"
            ? start + p.value
            : static_cast<int32_t>(std::ceil(static_cast<double>(start) * (1 + p.value / 100.0)));
    result = min ? std::min(result, proposed) : std::max(result, proposed);
  }
  return result;
}

int32_t HpaScalingHistory::ScaleDownLimit(const api::types::HpaScalingRules& rules, int32_t current,
                                          TimeMs now) const {
  if (rules.select_policy == "Disabled") return current;
  bool min = rules.select_policy == "Min";  // the least change: the highest limit
  int32_t result = min ? INT32_MIN : INT32_MAX;
  for (const auto& p : rules.policies) {
    TimeMs cutoff = now - TimeMs{p.period_seconds} * 1000;
    int32_t start = current - ChangeSince(ups_, cutoff) + ChangeSince(downs_, cutoff);
    int32_t proposed =
        p.type == "Pods" ? start - p.value
                         : static_cast<int32_t>(static_cast<double>(start) * (1 - p.value / 100.0));
    result = min ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

HpaNormalized HpaScalingHistory::Normalize(const api::types::HpaBehavior& behavior,
                                           int32_t min_replicas, int32_t max_replicas,
                                           int32_t current, int32_t proposal, TimeMs now) {
  // 1. Stabilization over the recorded recommendations.
  const TimeMs up_cutoff = now - TimeMs{behavior.scale_up.stabilization_window_seconds} * 1000;
  const TimeMs down_cutoff = now - TimeMs{behavior.scale_down.stabilization_window_seconds} * 1000;
  int32_t up = proposal, down = proposal;
  bool replaced = false;
  for (Sample& s : recommendations_) {
    if (s.at > up_cutoff) up = std::min(up, s.replicas);
    if (s.at > down_cutoff) down = std::max(down, s.replicas);
  }
  for (Sample& s : recommendations_) {
    if (!replaced && s.at <= up_cutoff && s.at <= down_cutoff) {
      s = {now, proposal};  // reuse one sample both windows have left
      replaced = true;
    }
  }
  if (!replaced) recommendations_.push_back({now, proposal});
  std::erase_if(recommendations_, [&](const Sample& s) {
    return s.at != now && s.at <= up_cutoff && s.at <= down_cutoff;
  });
  int32_t stabilized = std::min(std::max(current, up), down);

  HpaNormalized out;
  if (stabilized != proposal) {
    out.able_to_scale =
        stabilized < proposal
            ? HpaConditionUpdate{"ScaleUpStabilized",
                                 "recent recommendations were lower than current one, applying "
                                 "the lowest recent recommendation"}
            : HpaConditionUpdate{"ScaleDownStabilized",
                                 "recent recommendations were higher than current one, applying "
                                 "the highest recent recommendation"};
  } else {
    out.able_to_scale = {"ReadyForNewScale", "recommended size matches current size"};
  }

  // 2 and 3. Rate policies and bounds.
  out.replicas = stabilized;
  HpaConditionUpdate limit{"DesiredWithinRange",
                           "the desired count is within the acceptable range"};
  if (stabilized > current) {
    int32_t rate = std::max(ScaleUpLimit(behavior.scale_up, current, now), current);
    int32_t allowed = max_replicas;
    HpaConditionUpdate why{"TooManyReplicas",
                           "the desired replica count is more than the maximum replica count"};
    if (allowed > rate) {
      allowed = rate;
      why = {"ScaleUpLimit",
             "the desired replica count is increasing faster than the maximum scale rate"};
    }
    if (stabilized > allowed) {
      out.replicas = allowed;
      limit = why;
    }
  } else if (stabilized < current) {
    int32_t rate = std::min(ScaleDownLimit(behavior.scale_down, current, now), current);
    int32_t allowed = min_replicas;
    HpaConditionUpdate why{"TooFewReplicas",
                           "the desired replica count is less than the minimum replica count"};
    if (allowed < rate) {
      allowed = rate;
      why = {"ScaleDownLimit",
             "the desired replica count is decreasing faster than the maximum scale rate"};
    }
    if (stabilized < allowed) {
      out.replicas = allowed;
      limit = why;
    }
  }
  // A count outside the bounds comes back within them even when nothing else moves it.
  if (out.replicas > max_replicas) {
    out.replicas = max_replicas;
    limit = {"TooManyReplicas", "the desired replica count is more than the maximum replica count"};
  } else if (out.replicas < min_replicas) {
    out.replicas = min_replicas;
    limit = {"TooFewReplicas", "the desired replica count is less than the minimum replica count"};
  }
  out.scaling_limited = limit;
  out.limited = out.replicas != stabilized;
  return out;
}

void HpaScalingHistory::RecordScale(int32_t from, int32_t to, TimeMs now) {
  if (to > from) ups_.push_back({now, to - from});
  if (to < from) downs_.push_back({now, from - to});
  for (auto* events : {&ups_, &downs_}) {
    while (!events->empty() && events->front().at < now - kMaxPeriodMs) events->pop_front();
  }
}

}  // namespace etna::controllers
