#include "sched/placement/placer.h"

#include <fmt/format.h>

#include <algorithm>

namespace etna::sched {
namespace {

int WholeGpusNeeded(const Task& t) {
  int64_t g = t.request.Get(kGpu);
  return g >= 1000 ? static_cast<int>(g / 1000) : 0;
}

}  // namespace

void Placer::Scan(const Task& t, std::vector<Candidate>* out, FitErrors* errors) {
  out->clear();
  const auto& index = session_.free_gpu_index();
  int need = WholeGpusNeeded(t);
  size_t limit = options_.feasible_nodes > 0 ? static_cast<size_t>(options_.feasible_nodes)
                                             : session_.nodes().size();
  index.ForEach(need, /*tightest_first=*/true, [&](NodeIdx n) {
    if (!Allowed(n)) return true;
    if (filter_.FitsNow(t, n, errors)) out->push_back({n, filter_.ScoreOwn(t, n)});
    return out->size() < limit;
  });
  if (errors && out->empty()) {
    int total = static_cast<int>(session_.nodes().size());
    int indexed = index.CountAtLeast(0);
    int skipped = indexed - index.CountAtLeast(need);
    if (skipped > 0) errors->AddNodeFailure("Insufficient nvidia.com/gpu", skipped);
    if (total > indexed) errors->AddNodeFailure("node(s) were unschedulable", total - indexed);
    errors->set_total_nodes(total);
  }
}

size_t Placer::TemplateKeyHash::operator()(const TemplateKey& k) const {
  size_t h =
      std::hash<const void*>()(k.spec) ^ (static_cast<size_t>(k.job) * 0x9e3779b97f4a7c15ULL);
  for (int r = 0; r < k.request.dims(); ++r) {
    h = h * 31 + std::hash<int64_t>()(k.request.Get(r));
  }
  return h;
}

void Placer::Refresh(const Task& t, CandidateCache& cache) {
  const auto& log = session_.node_change_log();
  if (log.size() - cache.log_pos > 64) {
    Scan(t, &cache.candidates, nullptr);
  } else {
    for (size_t i = cache.log_pos; i < log.size(); ++i) {
      NodeIdx changed = log[i];
      auto it = std::find_if(cache.candidates.begin(), cache.candidates.end(),
                             [&](const Candidate& c) { return c.node == changed; });
      if (it == cache.candidates.end()) continue;
      if (filter_.FitsNow(t, changed, nullptr)) {
        it->score = filter_.ScoreOwn(t, changed);
      } else {
        cache.candidates.erase(it);
      }
    }
  }
  cache.log_pos = log.size();
}

Placer::Choice Placer::FindNode(TaskIdx ti, bool allow_pipeline, FitErrors* errors) {
  const Task& t = session_.task(ti);
  // A pipelined task returning to its nominated node goes there first.
  if (t.nominated_node != kNone && Allowed(t.nominated_node) &&
      filter_.FitsNow(t, t.nominated_node, nullptr)) {
    return {t.nominated_node, false};
  }
  bool shareable = !(t.spec && t.spec->HasPodAffinity()) && !session_.cross_node_predicates();
  std::vector<Candidate> local;
  std::vector<Candidate>* candidates = &local;
  if (shareable) {
    auto [it, inserted] = candidate_cache_.try_emplace(TemplateKey{t.job, t.spec.get(), t.request});
    CandidateCache& cache = it->second;
    if (inserted) {
      Scan(t, &cache.candidates, nullptr);
      cache.log_pos = session_.node_change_log().size();
    } else {
      Refresh(t, cache);
      if (cache.candidates.empty()) {
        Scan(t, &cache.candidates, nullptr);
        cache.log_pos = session_.node_change_log().size();
      }
    }
    candidates = &cache.candidates;
  } else {
    Scan(t, &local, nullptr);
  }
  if (!candidates->empty()) {
    // Cached scores are the task's own; scores that depend on where its job's members are
    // (topology) are added fresh for every task, for all candidates at once.
    bool members = session_.HasMemberScores();
    if (members) {
      member_nodes_.clear();
      for (const auto& c : *candidates) member_nodes_.push_back(&session_.node(c.node));
      member_scores_.assign(candidates->size(), 0.0);
      session_.AddNodeScoresMembers(t, member_nodes_, member_scores_);
    }
    NodeIdx best = kNone;
    double best_score = 0;
    for (size_t i = 0; i < candidates->size(); ++i) {
      double score = (*candidates)[i].score;
      if (members) score += member_scores_[i];
      if (best == kNone || score > best_score) {
        best = (*candidates)[i].node;
        best_score = score;
      }
    }
    return {best, false};
  }
  if (allow_pipeline && !session_.total_releasing().IsZero()) {
    if (Choice c = FindPipelineNode(t, shareable)) return c;
  }
  if (errors) {
    std::vector<Candidate> ignored;
    Scan(t, &ignored, errors);  // once more, counting why each node failed
  }
  return {};
}

bool Placer::PipelineFits(const Task& t, NodeIdx n) {
  const Node& node = session_.node(n);
  return !node.releasing.IsZero() && session_.Schedulable(node) && Allowed(n) &&
         session_.ResourceFits(t, node, node.FutureIdle(), /*check_devices=*/false, nullptr) &&
         AllPredicates(t, n).ok;
}

namespace {

// Inserts or removes `n` in the sorted `nodes` so that it is there exactly when `member`.
void SetMember(std::vector<NodeIdx>& nodes, NodeIdx n, bool member) {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), n);
  bool present = it != nodes.end() && *it == n;
  if (member && !present) nodes.insert(it, n);
  if (!member && present) nodes.erase(it);
}

}  // namespace

void Placer::RefreshReleasingNodes() {
  const auto& log = session_.node_change_log();
  auto note = [&](NodeIdx n) {
    const Node& node = session_.node(n);
    bool releasing = !node.releasing.IsZero();
    SetMember(releasing_nodes_, n, releasing);
    if (releasing) future_gpu_[n] = node.FutureIdle().Get(kGpu);
  };
  if (!releasing_known_) {
    releasing_nodes_.clear();
    future_gpu_.assign(session_.nodes().size(), 0);
    for (NodeIdx n = 0; n < static_cast<NodeIdx>(session_.nodes().size()); ++n) note(n);
    releasing_known_ = true;
  } else {
    for (size_t i = releasing_log_pos_; i < log.size(); ++i) note(log[i]);
  }
  releasing_log_pos_ = log.size();
}

Placer::Choice Placer::FindPipelineNode(const Task& t, bool shareable) {
  RefreshReleasingNodes();
  std::vector<NodeIdx> local;
  const std::vector<NodeIdx>* nodes = &local;
  const auto& log = session_.node_change_log();
  if (shareable) {
    auto [it, inserted] = pipeline_cache_.try_emplace(TemplateKey{t.job, t.spec.get(), t.request});
    PipelineCache& cache = it->second;
    if (inserted || log.size() - cache.log_pos > releasing_nodes_.size()) {
      cache.nodes.clear();
      int64_t gpus = t.request.Get(kGpu);
      for (NodeIdx n : releasing_nodes_) {
        if (future_gpu_[n] >= gpus && PipelineFits(t, n)) cache.nodes.push_back(n);
      }
    } else {
      for (size_t i = cache.log_pos; i < log.size(); ++i) {
        SetMember(cache.nodes, log[i], PipelineFits(t, log[i]));
      }
    }
    cache.log_pos = log.size();
    nodes = &cache.nodes;
  } else {
    for (NodeIdx n : releasing_nodes_) {
      if (PipelineFits(t, n)) local.push_back(n);
    }
  }
  NodeIdx best = kNone;
  double best_score = 0;
  for (NodeIdx n : *nodes) {
    double score = filter_.Score(t, n);
    if (best == kNone || score > best_score) {
      best = n;
      best_score = score;
    }
  }
  return {best, true};
}

}  // namespace etna::sched
