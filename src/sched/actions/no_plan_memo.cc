#include "sched/actions/no_plan_memo.h"

#include <algorithm>

namespace etna::sched {
namespace {

// Distinct classes remembered per scope; beyond it the oldest is forgotten (memory stays at
// most this many stamps per node).
constexpr size_t kMaxClasses = 32;

NoPlanMemo::Entry* Find(std::vector<NoPlanMemo::Entry>& entries, const NoPlanMemo::Class& c) {
  for (auto& e : entries) {
    if (e.cls == c) return &e;
  }
  return nullptr;
}

}  // namespace

NoPlanMemo::NoPlanMemo(const Session& s)
    : s_(s),
      changed_at_(s.nodes().size(), 0),
      remembered_(s.nodes().size(), true),
      visit_mark_(s.nodes().size(), 0) {
  for (NodeIdx n = 0; n < static_cast<NodeIdx>(s.nodes().size()); ++n) {
    if (s.node(n).reserved_for != kNone) {
      unremembered_.push_back(n);
      remembered_[n] = false;
    }
  }
}

std::optional<NoPlanMemo::Class> NoPlanMemo::ClassOf(const Session& s, const Task& t) {
  if (t.job == kNone || (t.spec && !t.spec->Unconstrained()) || s.cross_node_predicates()) {
    return std::nullopt;
  }
  const Job& j = s.job(t.job);
  return Class{j.queue, j.priority, t.priority, t.request};
}

void NoPlanMemo::Changed(NodeIdx n) {
  changed_at_[n] = ++stamp_;
  changes_.emplace_back(stamp_, n);
}

void NoPlanMemo::Refresh() {
  const auto& log = s_.node_change_log();
  for (; log_pos_ < log.size(); ++log_pos_) Changed(log[log_pos_]);
}

void NoPlanMemo::Touch(NodeIdx n) {
  Refresh();
  Changed(n);
}

std::vector<NodeIdx> NoPlanMemo::ChangedSince(uint64_t stamp) {
  std::vector<NodeIdx> out = unremembered_;
  ++stamp_;  // this visit's mark
  for (NodeIdx n : out) visit_mark_[n] = stamp_;
  auto it = std::upper_bound(changes_.begin(), changes_.end(), std::make_pair(stamp, kNone));
  for (; it != changes_.end(); ++it) {
    NodeIdx n = it->second;
    if (visit_mark_[n] == stamp_) continue;
    visit_mark_[n] = stamp_;
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void NoPlanMemo::ForgetOtherQueues(QueueIdx q) {
  std::erase_if(global_, [q](const Entry& e) { return e.cls.queue != q; });
}

bool NoPlanMemo::Pass::Known(NodeIdx n) const {
  return memo_.Valid(job_, n) || memo_.Valid(global_, n);
}

void NoPlanMemo::Pass::Failed(NodeIdx n) {
  if (record_ && memo_.remembered_[n]) failed_.push_back(n);
}

void NoPlanMemo::Pass::Found(NodeIdx n) {
  if (memo_.remembered_[n]) found_ = true;
}

void NoPlanMemo::Pass::Finish() {
  if (!record_) return;
  memo_.Refresh();
  for (NodeIdx n : failed_) record_->stamps[n] = ++memo_.stamp_;
  failed_.clear();
  // Every remembered node was visited (or unchanged since the last complete pass) and failed.
  if (!found_ && record_ == global_) record_->complete_at = ++memo_.stamp_;
}

NoPlanMemo::Pass NoPlanMemo::Begin(const Class& c, bool use_global, std::optional<Scope> record) {
  Refresh();
  Pass pass(*this);
  if (record) {  // first: adding a class may move the others
    std::vector<Entry>& entries = *record == Scope::kGlobal ? global_ : job_;
    pass.record_ = Find(entries, c);
    if (!pass.record_) {
      if (entries.size() >= kMaxClasses) entries.erase(entries.begin());
      entries.push_back({c, std::vector<uint64_t>(changed_at_.size(), 0), 0});
      pass.record_ = &entries.back();
    }
  }
  // A pass that records globally reads only global entries, so that a complete one is whole.
  if (record != Scope::kGlobal) pass.job_ = Find(job_, c);
  if (use_global || record == Scope::kGlobal) pass.global_ = Find(global_, c);
  if (pass.global_ && pass.global_->complete_at != 0) {
    pass.restricted_ = true;
    pass.nodes_ = ChangedSince(pass.global_->complete_at);
  }
  return pass;
}

}  // namespace etna::sched
