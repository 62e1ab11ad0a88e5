#include "sched/framework/statement.h"

#include <fmt/format.h>

namespace etna::sched {

Statement::~Statement() { Discard(); }

Status Statement::Allocate(TaskIdx ti, NodeIdx ni) {
  const Task& t = session_.task(ti);
  const Node& n = session_.node(ni);
  if (t.status != TaskStatus::kPending) {
    return Status::FailedPrecondition(
        fmt::format("task {} is {}, not Pending", t.name, TaskStatusName(t.status)));
  }
  if (!t.request.LessEqual(n.Idle())) {
    return Status::ResourceExhausted(fmt::format("node {} cannot hold task {}", n.name, t.name));
  }
  auto devices = session_.ChooseDevices(t, n);
  if (!devices) {
    return Status::ResourceExhausted(
        fmt::format("node {} has no free GPU devices for task {}", n.name, t.name));
  }
  session_.ApplyAllocate(ti, ni, std::move(*devices));
  ops_.push_back({OpKind::kAllocate, ti, TaskStatus::kPending, {}, {}, {}});
  return Status::Ok();
}

Status Statement::Pipeline(TaskIdx ti, NodeIdx ni) {
  const Task& t = session_.task(ti);
  const Node& n = session_.node(ni);
  if (t.status != TaskStatus::kPending) {
    return Status::FailedPrecondition(
        fmt::format("task {} is {}, not Pending", t.name, TaskStatusName(t.status)));
  }
  if (!t.request.LessEqual(n.FutureIdle())) {
    return Status::ResourceExhausted(
        fmt::format("node {} will not free enough for task {}", n.name, t.name));
  }
  session_.ApplyPipeline(ti, ni);
  ops_.push_back({OpKind::kPipeline, ti, TaskStatus::kPending, {}, {}, {}});
  return Status::Ok();
}

Status Statement::Evict(TaskIdx ti, std::string reason, std::string message,
                        std::string preemptor_job_uid) {
  const Task& t = session_.task(ti);
  if (!HoldsNode(t.status) || t.status == TaskStatus::kReleasing) {
    return Status::FailedPrecondition(
        fmt::format("task {} is {}, it cannot be evicted", t.name, TaskStatusName(t.status)));
  }
  TaskStatus prev = t.status;
  session_.ApplyEvict(ti);
  ops_.push_back({OpKind::kEvict, ti, prev, std::move(reason), std::move(message),
                  std::move(preemptor_job_uid)});
  return Status::Ok();
}

void Statement::Commit() {
  for (auto& op : ops_) {
    const Task& t = session_.task(op.task);
    session_.RecordCommitted(op.kind, op.task, t, session_.node(t.node), std::move(op.reason),
                             std::move(op.message), std::move(op.preemptor));
  }
  ops_.clear();
}

void Statement::Discard() {
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    switch (it->kind) {
      case OpKind::kAllocate:
        session_.UndoAllocate(it->task);
        break;
      case OpKind::kPipeline:
        session_.UndoPipeline(it->task);
        break;
      case OpKind::kEvict:
        session_.UndoEvict(it->task, it->prev_status);
        break;
    }
  }
  ops_.clear();
}

void Statement::Merge(Statement& other) {
  for (auto& op : other.ops_) ops_.push_back(std::move(op));
  other.ops_.clear();
}

}  // namespace etna::sched
