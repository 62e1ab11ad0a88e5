// Placer: finds the node for one task, the shared first step of allocate, backfill and the
// victim search.
//
// Pipeline for a task: candidate nodes come from the FreeGpuIndex (only nodes with enough free
// whole GPUs, tightest first, so CPU-only work lands where GPUs are already busy) → the
// NodeFilter (resource fit against idle resources, including concrete devices, then the
// predicates) → the first `feasible_nodes` feasible nodes are scored by the NodeOrder plugins
// and the best wins (ties: the earlier candidate). Identical tasks of one job reuse the scored
// candidate list: only nodes changed since (from the session's change log) are re-checked, and
// scores that depend on where the job's other members are (Session::AddNodeScoresMembers) are
// added afresh per task, for every candidate in one call per plugin.
//
// When no node has idle room and `allow_pipeline` is set, a node whose future idle resources
// (after releasing tasks leave) hold the task is returned for pipelining. Only nodes with
// releasing tasks can be such a node; the Placer keeps them (from the change log), and keeps per
// task template the ones that hold it, re-checking only nodes changed since, so a victim search
// that pipelines thousands of tasks does not scan every node for each.
//
// Thread-safety: none; one per action run.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/framework/fit_errors.h"
#include "sched/framework/session.h"
#include "sched/placement/node_filter.h"

namespace etna::sched {

struct PlacerOptions {
  int feasible_nodes = 100;  // candidates scored per task; 0 = every feasible node
};

class Placer {
 public:
  struct Choice {
    NodeIdx node = kNone;
    bool pipeline = false;
    explicit operator bool() const { return node != kNone; }
  };

  Placer(Session& session, PlacerOptions options)
      : session_(session), options_(options), filter_(session) {}

  // `errors`, when given, is filled (by one more scan) only when no node is found.
  Choice FindNode(TaskIdx task, bool allow_pipeline, FitErrors* errors);
  // Restricts every later search to nodes n with (*allowed)[n] (null: every node), e.g. to one
  // hypernode for a job in hard network-topology mode. The caller keeps `allowed` alive while
  // it is set. Setting it drops the cached candidate lists.
  void SetNodeFilter(const std::vector<bool>* allowed) {
    node_filter_ = allowed;
    candidate_cache_.clear();
    pipeline_cache_.clear();
  }
  // Every predicate, ignoring resources: could this task ever run on this node?
  PredicateResult AllPredicates(const Task& t, NodeIdx n) { return filter_.AllPredicates(t, n); }

 private:
  struct Candidate {
    NodeIdx node;
    double score;  // Session::NodeScoreOwn
  };
  struct CandidateCache {
    size_t log_pos = 0;
    std::vector<Candidate> candidates;
  };

  // Nodes (in index order) that could take `t` once their releasing tasks are gone.
  struct PipelineCache {
    size_t log_pos = 0;
    std::vector<NodeIdx> nodes;
  };

  void Scan(const Task& t, std::vector<Candidate>* out, FitErrors* errors);
  void Refresh(const Task& t, CandidateCache& cache);
  Choice FindPipelineNode(const Task& t, bool shareable);
  bool PipelineFits(const Task& t, NodeIdx n);
  // Brings releasing_nodes_ up to the session's change log.
  void RefreshReleasingNodes();
  struct TemplateKey {
    JobIdx job;
    const PodSpec* spec;
    ResourceVector request;
    bool operator==(const TemplateKey& o) const {
      return job == o.job && spec == o.spec && request == o.request;
    }
  };
  struct TemplateKeyHash {
    size_t operator()(const TemplateKey& k) const;
  };
  bool Allowed(NodeIdx n) const { return node_filter_ == nullptr || (*node_filter_)[n]; }

  Session& session_;
  PlacerOptions options_;
  NodeFilter filter_;
  std::unordered_map<TemplateKey, CandidateCache, TemplateKeyHash> candidate_cache_;
  std::unordered_map<TemplateKey, PipelineCache, TemplateKeyHash> pipeline_cache_;
  std::vector<const Node*> member_nodes_;  // FindNode's scratch for member scores
  std::vector<double> member_scores_;
  std::vector<NodeIdx> releasing_nodes_;  // nodes with releasing tasks, in index order
  std::vector<int64_t> future_gpu_;       // their future idle GPUs (milli), a quick first test
  size_t releasing_log_pos_ = 0;
  bool releasing_known_ = false;
  const std::vector<bool>* node_filter_ = nullptr;
};

}  // namespace etna::sched
