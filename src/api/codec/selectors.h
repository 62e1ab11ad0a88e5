// Kubernetes label and field selectors: parsing (the syntax of labelSelector= and
// fieldSelector= query parameters) and matching.
//
// Label selectors: comma-separated requirements `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
// `k notin (a,b)`, `k`, `!k`, and the set-based `k>5`/`k<5` numeric forms. Keys may carry a DNS
// prefix (`volcano.sh/job-name`). Field selectors: `path=v`, `path==v`, `path!=v`, comma = AND.
// Parse errors are InvalidArgument with the offending text. Immutable after parsing; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::api::codec {

class LabelSelector {
 public:
  enum class Op {
    kEquals,
    kNotEquals,
    kIn,
    kNotIn,
    kExists,
    kDoesNotExist,
    kGreaterThan,
    kLessThan
  };
  struct Requirement {
    std::string key;
    Op op = Op::kEquals;
    std::vector<std::string> values;
  };

  static Result<LabelSelector> Parse(std::string_view text);
  bool Empty() const { return requirements_.empty(); }
  // `labels` is an object of string values (metadata.labels) or null.
  bool Matches(const nlohmann::json& labels) const;
  // False when `compact` (an object as compact JSON, as the server stores it) cannot match: for
  // a `k=v` or `k in (...)` term none of `"k":"v"` appears in the text, for `k` (exists) no
  // `"k":`. True otherwise (Matches decides). Lets a labelled list (an agent's peers of one job,
  // `kubectl get -l`) skip decoding the objects it does not select.
  bool MayMatchCompact(std::string_view compact) const;
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
  // Per positive term: the texts one of which the JSON must contain.
  std::vector<std::vector<std::string>> needles_;
};

class FieldSelector {
 public:
  struct Requirement {
    std::string field;   // dotted path: "metadata.name", "spec.nodeName", "involvedObject.kind"
    bool equals = true;  // false for !=
    std::string value;
  };

  static Result<FieldSelector> Parse(std::string_view text);
  bool Empty() const { return requirements_.empty(); }
  // Resolves each field as a dotted path in `object`; a missing or null field is "" (so
  // `involvedObject.namespace=` matches an absent namespace); numbers and booleans compare by
  // their JSON text.
  bool Matches(const nlohmann::json& object) const;
  // False when `compact` (an object as compact JSON, as the server stores it) cannot match: an
  // `=` term with a non-empty value whose `"<last key>":<value>` (the value quoted or as a JSON
  // literal) appears nowhere in the text. True otherwise (Matches decides). Lets a watch of
  // `spec.nodeName=<node>` (every agent's) skip decoding the events of other nodes' pods.
  bool MayMatchCompact(std::string_view compact) const;
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
  // Per `=` term with a non-empty value: the texts one of which the JSON must contain.
  std::vector<std::vector<std::string>> needles_;
};

}  // namespace etna::api::codec
