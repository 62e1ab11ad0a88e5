#include "sched/model/snapshot.h"

#include <fmt/format.h>

namespace etna::sched {

std::string OutsideWindowMessage(const Queue& q) {
  if (q.window.next_open.empty()) {
    return fmt::format("queue {} is outside its time windows (none opens again)", q.name);
  }
  return fmt::format("queue {} is outside its time windows (next opens {})", q.name,
                     q.window.next_open);
}

const char* PodGroupPhaseName(PodGroupPhase phase) {
  switch (phase) {
    case PodGroupPhase::kPending:
      return "Pending";
    case PodGroupPhase::kInqueue:
      return "Inqueue";
    case PodGroupPhase::kRunning:
      return "Running";
    case PodGroupPhase::kUnknown:
      return "Unknown";
    case PodGroupPhase::kCompleted:
      return "Completed";
  }
  return "?";
}

const char* TaskStatusName(TaskStatus status) {
  switch (status) {
    case TaskStatus::kPending:
      return "Pending";
    case TaskStatus::kAllocated:
      return "Allocated";
    case TaskStatus::kPipelined:
      return "Pipelined";
    case TaskStatus::kBinding:
      return "Binding";
    case TaskStatus::kBound:
      return "Bound";
    case TaskStatus::kRunning:
      return "Running";
    case TaskStatus::kReleasing:
      return "Releasing";
    case TaskStatus::kSucceeded:
      return "Succeeded";
    case TaskStatus::kFailed:
      return "Failed";
    case TaskStatus::kUnknown:
      return "Unknown";
  }
  return "?";
}

bool HoldsNode(TaskStatus s) {
  return s == TaskStatus::kAllocated || s == TaskStatus::kBinding || s == TaskStatus::kBound ||
         s == TaskStatus::kRunning || s == TaskStatus::kReleasing;
}

bool CountsForGang(TaskStatus s) {
  return s == TaskStatus::kAllocated || s == TaskStatus::kPipelined || s == TaskStatus::kBinding ||
         s == TaskStatus::kBound || s == TaskStatus::kRunning;
}

}  // namespace etna::sched
