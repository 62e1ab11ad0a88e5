// FitErrors: why a task found no node, in the style of Nomad and kube-scheduler: how many nodes
// failed which predicate and which resources ran out, e.g.
//   "0/16 nodes are available: 12 Insufficient nvidia.com/gpu, 4 node(s) had untolerated taint
//    {dedicated: infer}."
// Not thread-safe; one per attempt.
#pragma once

#include <map>
#include <string>

namespace etna::sched {

class FitErrors {
 public:
  explicit FitErrors(int total_nodes = 0) : total_nodes_(total_nodes) {}

  void AddNodeFailure(const std::string& reason) { ++reasons_[reason]; }
  void AddNodeFailure(const std::string& reason, int count) { reasons_[reason] += count; }
  void set_total_nodes(int n) { total_nodes_ = n; }
  bool empty() const { return reasons_.empty(); }
  const std::map<std::string, int>& reasons() const { return reasons_; }
  std::string ToString() const;

 private:
  int total_nodes_ = 0;
  std::map<std::string, int> reasons_;
};

}  // namespace etna::sched
