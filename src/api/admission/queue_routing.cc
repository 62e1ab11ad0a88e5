// The queue a new workload goes to, one rule for every kind that names a queue (Job, PodGroup
// and a bare Pod, which gets a PodGroup of its own), and the Queue's spec.minResources check.
//
// Order: the queue named explicitly (Job and PodGroup spec.queue, a pod's Volcano annotation
// scheduling.volcano.sh/queue-name) > the seed's `queue` label when it names an existing Queue >
// the first QueueBinding (by name) whose selector matches the workload's labels > "default".
// A queue that has QueueBindings takes only workloads whose labels match one of them, however it
// was chosen.
#include <fmt/format.h>

#include <algorithm>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"
#include "api/types/well_known.h"

namespace etna::api::admission::internal {

namespace {

std::string BindingQueue(const Json& binding) {
  const Json* s = Field(binding, "spec");
  const Json* q = s ? Field(*s, "queue") : nullptr;
  return q && q->is_string() ? q->get<std::string>() : "";
}

bool BindingMatches(const Json& binding, const Json* labels) {
  const Json* s = Field(binding, "spec");
  const Json* sel = s ? Field(*s, "selector") : nullptr;
  return SelectorMatches(sel ? *sel : Json::object(), labels);
}

const Json* LabelsOf(const Json& object) {
  const Json* meta = Field(object, "metadata");
  return meta ? Field(*meta, "labels") : nullptr;
}

// A quantity of `name` as the user would write it: "1", "500m", "1073741824".
std::string FormatAmount(const std::string& name, int64_t amount) {
  if (IsByteResource(name) || amount % 1000 == 0) {
    return std::to_string(IsByteResource(name) ? amount : amount / 1000);
  }
  return fmt::format("{}m", amount);
}

}  // namespace

std::string RouteToQueue(Context& c, const std::string& explicit_queue, const std::string& path,
                         const char* what) {
  const Json* labels = LabelsOf(c.object);
  auto listed = c.lookup.List(QueueBindingResource(), "");
  std::vector<const Json*> bindings;
  if (listed.ok()) {
    for (const Json& b : *listed) bindings.push_back(&b);
  }
  std::sort(bindings.begin(), bindings.end(),
            [](const Json* a, const Json* b) { return NameOf(*a) < NameOf(*b); });

  std::string queue = explicit_queue;
  if (queue.empty() && labels && labels->is_object()) {
    const Json* label = Field(*labels, types::kQueueLabel);
    if (label && label->is_string() && !label->get_ref<const std::string&>().empty() &&
        c.lookup.Get(QueueResource(), "", label->get<std::string>()).ok()) {
      queue = label->get<std::string>();
    }
  }
  if (queue.empty()) {
    for (const Json* b : bindings) {
      if (!BindingQueue(*b).empty() && BindingMatches(*b, labels)) return BindingQueue(*b);
    }
    return "default";
  }
  bool bound = false;
  for (const Json* b : bindings) {
    if (BindingQueue(*b) != queue) continue;
    bound = true;
    if (BindingMatches(*b, labels)) return queue;
  }
  if (bound) {
    c.errs.Forbidden(path, fmt::format("queue `{}` has QueueBindings and the {}'s labels match "
                                       "none of them",
                                       queue, what));
  }
  return queue;
}

void CheckQueueMinResources(const Json& queue, const ResourceAmounts& requested,
                            const std::string& path, const char* what, Errors& errs) {
  const Json* spec = Field(queue, "spec");
  const Json* min = spec ? Field(*spec, "minResources") : nullptr;
  if (!min || !min->is_object()) return;
  Errors ignored;  // the Queue's own admission reported a bad minResources
  ResourceAmounts least = ValidateResourceList(*min, "spec.minResources", false, ignored);
  for (const auto& [name, amount] : least) {
    auto it = requested.find(name);
    int64_t asked = it == requested.end() ? 0 : it->second;
    if (asked >= amount) continue;
    errs.Forbidden(path, fmt::format("queue {} requires each {} to request at least {} {} "
                                     "(minResources); this {} requests {}",
                                     NameOf(queue), what, FormatAmount(name, amount), name, what,
                                     FormatAmount(name, asked)));
  }
}

}  // namespace etna::api::admission::internal
