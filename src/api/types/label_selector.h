// metav1.LabelSelector as JSON (matchLabels AND matchExpressions): matching an object's labels
// and the text form kubectl prints and the scale subresource reports. One place for both:
// admission (a template's labels against its selector, queue namespaces), the Table printers,
// the scale subresource and the ReplicaSet and Deployment controllers use them.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "api/types/fields.h"

namespace etna::api::types {

// True when `labels` (a JSON object or null) satisfies `selector`; an empty selector matches
// everything, a malformed requirement matches nothing.
bool SelectorMatches(const Json& selector, const Json* labels);
// metav1.FormatLabelSelector: "app=x,tier in (a,b)", "<none>" when null or empty.
std::string FormatLabelSelector(const Json* selector);

}  // namespace etna::api::types
