// Cache::Assemble: a cycle's snapshot from the converted records. Indices are resolved here
// (node, queue, job, parent queue, hypernode members, MIG instance ids); nothing is parsed.
#include <regex>

#include "scheduler/cache.h"

namespace etna::scheduler {
namespace {

// Resolves MIG GI ids to indices into the node's devices; false when one is unknown.
bool ResolveMig(const sched::Node& node, const std::vector<int32_t>& mig_ids,
                std::vector<sched::DeviceAllocation>* devices) {
  for (size_t i = 0; i < devices->size() && i < mig_ids.size(); ++i) {
    if (mig_ids[i] < 0) continue;
    auto& d = (*devices)[i];
    if (d.gpu < 0 || d.gpu >= static_cast<int32_t>(node.gpus.size())) return false;
    const auto& mig = node.gpus[d.gpu].mig;
    d.mig_instance = -1;
    for (size_t k = 0; k < mig.size(); ++k) {
      if (mig[k].id == mig_ids[i]) d.mig_instance = static_cast<int32_t>(k);
    }
    if (d.mig_instance < 0) return false;
  }
  return true;
}

}  // namespace

void Cache::SetTimeZone(TimeZone zone) {
  std::lock_guard<std::mutex> lock(mu_);
  zone_ = std::move(zone);
}

Assembled Cache::Assemble(TimeMs now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.assembled;
  Assembled out;
  sched::Snapshot& s = out.snapshot;
  s.now_ms = now_ms;
  s.capacity_generation = capacity_generation_;

  std::unordered_map<std::string_view, sched::NodeIdx> node_idx;
  s.nodes.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) {
    node_idx[name] = static_cast<sched::NodeIdx>(s.nodes.size());
    s.nodes.push_back(node);
    if (auto it = external_.find(name); it != external_.end()) {
      s.nodes.back().external_used = it->second.ClampedAtZero();
    }
  }

  std::unordered_map<std::string_view, sched::QueueIdx> queue_idx;
  for (const auto& [name, q] : queues_) {
    queue_idx[name] = static_cast<sched::QueueIdx>(s.queues.size());
    s.queues.push_back(q.queue);
  }
  {
    size_t i = 0;
    for (const auto& [name, q] : queues_) {
      auto it = q.parent.empty() ? queue_idx.end() : queue_idx.find(q.parent);
      s.queues[i++].parent = it == queue_idx.end() ? sched::kNone : it->second;
    }
  }
  out.queue_allocated.resize(s.queues.size());
  out.queue_windows.resize(s.queues.size());
  for (const auto& [name, q] : queues_) out.queue_stored_usage.push_back(q.stored_usage);
  {
    size_t i = 0;
    for (const auto& [name, q] : queues_) {
      QueueWindowStatus& status = out.queue_windows[i];
      sched::Queue::TimeWindow& window = s.queues[i++].window;
      if (q.time_policies.empty()) continue;
      WindowState w = ResolveWindows(q.time_policies, zone_, now_ms);
      status = {true, w.open, ""};
      window.outside = !w.open;
      if (!w.open && w.next_open_ms) {
        window.next_open_ms = *w.next_open_ms;
        window.next_open = zone_.FormatWeekdayTime(*w.next_open_ms);
        status.next_open = zone_.FormatRfc3339(*w.next_open_ms);
      }
    }
  }

  // Admission refused what does not resolve; an object stored before its class went away keeps
  // its own integer, else the default.
  auto priority_of = [&](const std::string& cls, bool has_own, int32_t own) {
    std::optional<int64_t> own_priority;
    if (has_own) own_priority = own;
    return api::types::ResolvePriority(cls, own_priority, priority_classes_, "spec").value;
  };

  std::unordered_map<std::string_view, sched::JobIdx> job_idx;
  for (const auto& [key, rec] : jobs_) {
    auto q = queue_idx.find(rec.queue);
    if (q == queue_idx.end()) continue;  // its queue is unknown: not schedulable yet
    job_idx[key] = static_cast<sched::JobIdx>(s.jobs.size());
    sched::Job job = rec.job;
    job.queue = q->second;
    job.priority = priority_of(rec.priority_class, rec.has_priority, rec.job.priority);
    s.jobs.push_back(std::move(job));
    out.job_keys.push_back(key);
  }

  auto default_queue = queue_idx.find(std::string_view("default"));
  for (const auto& [key, rec] : pods_) {
    if (!rec.managed) continue;
    sched::Task t = rec.task;
    std::vector<int32_t> mig_ids = rec.mig_ids;
    std::string node_name = rec.node_name;
    if (node_name.empty() && !rec.terminal) {
      if (auto b = binding_.find(key); b != binding_.end()) {
        node_name = b->second.node;
        t.status = sched::TaskStatus::kBinding;
        t.devices = b->second.devices;
        mig_ids.assign(t.devices.size(), -1);  // the choice's instance indices already
      }
    }
    bool holds = sched::HoldsNode(t.status);
    sched::NodeIdx n = sched::kNone;
    if (!node_name.empty()) {
      auto it = node_idx.find(node_name);
      if (it != node_idx.end()) n = it->second;
    }
    if (holds && n == sched::kNone) continue;  // its node is gone: it holds nothing we see
    if (n != sched::kNone && holds && !ResolveMig(s.nodes[n], mig_ids, &t.devices)) {
      t.devices.clear();  // stale instance ids: still count the resources
    }
    t.node = holds ? n : sched::kNone;
    sched::JobIdx j = sched::kNone;
    if (!rec.group.empty()) {
      auto it = job_idx.find(rec.group);
      if (it != job_idx.end()) j = it->second;
    } else if (default_queue != queue_idx.end() && !rec.terminal) {
      // A pod without a PodGroup is a job of one (as Volcano does), in the queue admission
      // routed it to (the default queue when none, or when that queue is gone).
      auto routed = rec.queue.empty() ? queue_idx.end() : queue_idx.find(rec.queue);
      sched::Job job;
      job.uid = t.uid;
      job.name = t.name;
      job.ns = t.ns;
      job.queue = (routed != queue_idx.end() ? routed : default_queue)->second;
      if (rec.service) job.kind = sched::Job::Kind::kInference;
      job.min_available = 1;
      job.priority = priority_of(rec.priority_class, rec.has_priority, rec.task.priority);
      job.phase = holds ? sched::PodGroupPhase::kRunning : sched::PodGroupPhase::kInqueue;
      j = static_cast<sched::JobIdx>(s.jobs.size());
      s.jobs.push_back(std::move(job));
      out.job_keys.emplace_back();
    }
    if (j == sched::kNone) {
      // No job to schedule it under (another scheduler's pod, or one whose PodGroup was deleted
      // while it terminates): what it holds, its GPUs included, is someone else's use of the
      // node. Without the GPUs, a deleted job's terminating pod had its GPUs bound again.
      if (holds) {
        s.nodes[n].external_used += t.request;
        s.nodes[n].external_devices.insert(s.nodes[n].external_devices.end(), t.devices.begin(),
                                           t.devices.end());
      }
      continue;
    }
    t.job = j;
    if (!rec.has_priority) t.priority = s.jobs[j].priority;
    sched::TaskIdx ti = static_cast<sched::TaskIdx>(s.tasks.size());
    s.jobs[j].tasks.push_back(ti);
    if (holds) out.queue_allocated[s.jobs[j].queue] += t.request;
    // A group that completed gets new pods when its job restarts (RestartJob, ResumeJob): it
    // is pending again, as Volcano's scheduler derives the phase from the tasks each session.
    if (s.jobs[j].phase == sched::PodGroupPhase::kCompleted && !rec.terminal && !holds) {
      s.jobs[j].phase = sched::PodGroupPhase::kPending;
    }
    s.tasks.push_back(std::move(t));
    out.task_keys.push_back(key);
  }

  std::unordered_map<std::string_view, int32_t> hyper_idx;
  for (const auto& [name, h] : hypernodes_) {
    hyper_idx[name] = static_cast<int32_t>(s.hypernodes.size());
    s.hypernodes.push_back({h.name, h.tier, {}, {}});
  }
  size_t hi = 0;
  for (const auto& [name, h] : hypernodes_) {
    sched::HyperNode& hn = s.hypernodes[hi++];
    for (const auto& member : h.node_names) {
      if (auto it = node_idx.find(member); it != node_idx.end()) hn.nodes.push_back(it->second);
    }
    for (const auto& pattern : h.node_patterns) {
      try {
        std::regex re(pattern);
        for (size_t n = 0; n < s.nodes.size(); ++n) {
          if (std::regex_match(s.nodes[n].name, re)) hn.nodes.push_back(n);
        }
      } catch (const std::regex_error&) {
        // A bad pattern matches nothing.
      }
    }
    for (const auto& member : h.hypernode_names) {
      if (auto it = hyper_idx.find(member); it != hyper_idx.end()) {
        hn.hypernodes.push_back(it->second);
      }
    }
  }
  return out;
}

}  // namespace etna::scheduler
