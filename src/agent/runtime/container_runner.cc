#include "agent/runtime/container_runner.h"

#include <fmt/format.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "agent/runtime/log_rotation.h"
#include "common/file.h"
#include "common/time.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json Terminated(const ExitRecord& e, TimeMs started_ms) {
  json t = {{"exitCode", e.exit_code},
            {"reason", e.reason},
            {"startedAt", FormatRfc3339(started_ms)},
            {"finishedAt", FormatRfc3339(e.finished_ms)}};
  if (!e.message.empty()) t["message"] = e.message;
  return {{"terminated", t}};
}

}  // namespace

ContainerRunner::ContainerRunner(std::string dir, json spec, const RuntimeTuning* tuning)
    : dir_(std::move(dir)), spec_(std::move(spec)), tuning_(tuning) {
  name_ = spec_.value("name", "");
  std::error_code ec;
  fs::create_directories(dir_, ec);
  Load();
}

std::string ContainerRunner::RunFile(int attempt, const char* ext) const {
  return fmt::format("{}/{}.{}", dir_, attempt, ext);
}

void ContainerRunner::Persist() const {
  json state = {{"attempt", attempt_},
                {"pid", pid_},
                {"pidStart", pid_start_},
                {"startedMs", started_ms_},
                {"lastStartedMs", last_started_ms_},
                {"imageID", image_id_}};
  // Best effort: a lost write only costs the restart its adoption of the running process.
  (void)WriteFileAtomically(dir_ + "/state.json", state.dump(), 0644);
}

void ContainerRunner::Load() {
  std::ifstream in(dir_ + "/state.json");
  if (!in) return;
  json state = json::parse(in, nullptr, false);
  if (state.is_discarded() || !state.is_object()) return;
  attempt_ = state.value("attempt", -1);
  if (attempt_ < 0) return;
  pid_ = state.value("pid", 0);
  pid_start_ = state.value("pidStart", -1LL);
  started_ms_ = state.value("startedMs", 0LL);
  last_started_ms_ = state.value("lastStartedMs", 0LL);
  image_id_ = state.value("imageID", "");
  if (attempt_ > 0) {
    auto last = ReadExitFile(RunFile(attempt_ - 1, "exit"));
    if (last.ok()) last_exit_ = *last;
  }
  running_ = true;  // Observe decides: the exit file, a live shim (adopted) or a vanished one
  started_ = !spec_.contains("startupProbe");
}

void ContainerRunner::Kill(int signal) {
  if (pid_ > 0 && ProcessStartTicks(pid_) == pid_start_)
    tuning_->backend->Signal(Run(), pid_, signal);
}

void ContainerRunner::Observe(TimeMs now) {
  if (!running_) {
    if (pid_ > 0 && ReapIfChild(pid_)) pid_ = 0;  // the shim exits right after its exit file
    return;
  }
  std::string exit_file = RunFile(attempt_, "exit");
  auto exit = ReadExitFile(exit_file);
  if (!exit.ok()) {
    long long ticks = ProcessStartTicks(pid_);
    if (ticks >= 0 && ticks == pid_start_) return;  // still running
    ReapIfChild(pid_);
    exit = ReadExitFile(exit_file);  // it may have finished just now
    if (!exit.ok()) {
      ExitRecord vanished{137, now, "Error",
                          kill_reason_.empty() ? "the container's supervisor ended without an "
                                                 "exit record"
                                               : kill_reason_};
      WriteExitFile(exit_file, vanished).ok();
      exit = vanished;
    }
  }
  running_ = false;
  ExitRecord finished = *exit;
  tuning_->backend->Finish(Run(), &finished);
  if (finished.reason != exit->reason || finished.message != exit->message) {
    WriteExitFile(exit_file, finished).ok();  // a later agent reads the corrected record
  }
  current_exit_ = finished;
  if (!kill_reason_.empty() && current_exit_->message.empty())
    current_exit_->message = kill_reason_;
  ready_ = false;
  startup_.reset();
  liveness_.reset();
  readiness_.reset();
  target_.reset();
  if (ReapIfChild(pid_)) pid_ = 0;
}

void ContainerRunner::Launch(const json& pod, const PodContext& context, TimeMs now) {
  int attempt = attempt_ + 1;
  Prepared prepared = tuning_->backend->Prepare({pod, spec_, context, {dir_, attempt}}, &events_);
  if (prepared.state != Prepared::State::kReady) {
    waiting_reason_ = prepared.reason;
    waiting_message_ = prepared.message;
    // A run that cannot be created waits out a backoff; one waiting (for its image) asks again.
    if (prepared.state == Prepared::State::kFailed) {
      next_start_ms_ = now + tuning_->backoff_initial_ms;
    }
    return;
  }
  waiting_reason_ = "ContainerCreating";
  waiting_message_.clear();
  image_id_ = prepared.image_id;
  if (current_exit_) {
    last_exit_ = current_exit_;
    last_started_ms_ = started_ms_;
  }
  std::error_code ec;
  fs::remove(RunFile(attempt, "exit"), ec);
  // The kubelet keeps the logs of the current and the previous run only.
  if (attempt >= 2) {
    RemoveRunLogs(RunFile(attempt - 2, "log"));
    fs::remove(RunFile(attempt - 2, "exit"), ec);
  }
  ShimLaunch shim = std::move(prepared.launch);
  shim.shim_binary = tuning_->shim_binary;
  shim.exit_file = RunFile(attempt, "exit");
  shim.log_file = RunFile(attempt, "log");
  shim.log_max_bytes = tuning_->log_max_bytes;
  shim.log_max_files = tuning_->log_max_files;
  auto pid = StartShim(shim);
  attempt_ = attempt;
  started_ms_ = now;
  current_exit_.reset();
  next_start_ms_ = 0;
  kill_reason_.clear();
  sigkilled_ = false;
  ready_ = false;
  started_ = !spec_.contains("startupProbe");
  if (!pid.ok()) {  // the run ends at once; the restart policy decides what follows
    ExitRecord failed{128, now, "StartError", pid.status().message()};
    WriteExitFile(RunFile(attempt, "exit"), failed).ok();
    std::ofstream(RunFile(attempt, "log"), std::ios::app) << "etna: " << failed.message << "\n";
    pid_ = 0;
    pid_start_ = -1;
    running_ = false;
    current_exit_ = failed;
    Persist();
    return;
  }
  pid_ = *pid;
  pid_start_ = ProcessStartTicks(pid_);
  running_ = true;
  Persist();
}

void ContainerRunner::Probe(const json& pod, const PodContext& context, TimeMs now) {
  if (!target_) {  // exec probes and `kubectl exec` run with the container's environment
    ProbeTarget target;
    target.host = context.pod_ip;
    target.ports = spec_.value("ports", json::array());
    target.exec_prefix = tuning_->backend->ExecPrefix(Run());
    if (target.exec_prefix.empty()) {  // a host process: the command gets its environment
      auto launch = BuildLaunch(pod, spec_, context);
      if (launch.ok()) {
        target.env = launch->env;
        target.working_dir = launch->working_dir;
      }
    }
    target_ = std::move(target);
  }
  if (!startup_ && !liveness_ && !readiness_ &&
      (spec_.contains("startupProbe") || spec_.contains("livenessProbe") ||
       spec_.contains("readinessProbe"))) {
    const ProbeTarget& target = *target_;
    if (spec_.contains("startupProbe") && !started_) {
      startup_.emplace(spec_["startupProbe"], target, started_ms_);
    }
    if (spec_.contains("livenessProbe"))
      liveness_.emplace(spec_["livenessProbe"], target, started_ms_);
    if (spec_.contains("readinessProbe")) {
      readiness_.emplace(spec_["readinessProbe"], target, started_ms_);
    }
  }
  if (!started_) {
    auto v = startup_ ? startup_->Poll(now) : ProbeTracker::Verdict::kSuccess;
    if (v == ProbeTracker::Verdict::kSuccess) started_ = true;
    if (v == ProbeTracker::Verdict::kFailure) {
      kill_reason_ = "startup probe failed";
      Kill(SIGKILL);
    }
    if (!started_) return;
  }
  if (liveness_ && liveness_->Poll(now) == ProbeTracker::Verdict::kFailure) {
    kill_reason_ = "liveness probe failed";
    Kill(SIGKILL);
  }
  ready_ = !readiness_ || readiness_->Poll(now) == ProbeTracker::Verdict::kSuccess;
}

void ContainerRunner::Step(const json& pod, const PodContext& context,
                           const std::string& restart_policy, TimeMs now) {
  if (stopping_) {
    Observe(now);
    return;
  }
  Observe(now);
  if (running_) {
    Probe(pod, context, now);
    return;
  }
  if (final_) return;
  if (attempt_ < 0) {
    if (now >= next_start_ms_) Launch(pod, context, now);
    return;
  }
  if (!current_exit_) return;
  bool restart = restart_policy == "Always" ||
                 (restart_policy == "OnFailure" && current_exit_->exit_code != 0);
  if (!restart) {
    final_ = true;
    return;
  }
  if (next_start_ms_ == 0) {
    TimeMs backoff = tuning_->backoff_initial_ms;
    for (int i = 0; i < attempt_ && backoff < tuning_->backoff_max_ms; ++i) backoff *= 2;
    next_start_ms_ = now + std::min(backoff, tuning_->backoff_max_ms);
  }
  if (now >= next_start_ms_) Launch(pod, context, now);
}

void ContainerRunner::ShiftDeadlines(TimeMs step_ms) {
  if (next_start_ms_ != 0) next_start_ms_ += step_ms;
  for (auto* probe : {&startup_, &liveness_, &readiness_}) {
    if (*probe) (*probe)->ShiftDeadlines(step_ms);
  }
}

void ContainerRunner::Stop(TimeMs kill_at_ms, TimeMs now) {
  if (!stopping_) {
    stopping_ = true;
    if (running_) Kill(SIGTERM);
  }
  Observe(now);
  if (running_ && now >= kill_at_ms && !sigkilled_) {
    sigkilled_ = true;
    kill_reason_ = "killed after the termination grace period";
    Kill(SIGKILL);
  }
  if (!running_) final_ = true;
}

json ContainerRunner::Status(TimeMs) const {
  json s = {{"name", name_},
            {"image", spec_.value("image", "")},
            {"imageID", image_id_},
            {"restartCount", std::max(attempt_, 0)},
            {"ready", running_ && started_ && ready_},
            {"started", running_ && started_}};
  if (attempt_ >= 0) {
    s["containerID"] =
        fmt::format("etna://{}/{}", fs::path(dir_).parent_path().filename().string(), attempt_);
  }
  if (running_) {
    s["state"] = {{"running", {{"startedAt", FormatRfc3339(started_ms_)}}}};
    if (last_exit_) s["lastState"] = Terminated(*last_exit_, last_started_ms_);
  } else if (current_exit_ && final_) {
    s["state"] = Terminated(*current_exit_, started_ms_);
    if (last_exit_) s["lastState"] = Terminated(*last_exit_, last_started_ms_);
  } else if (current_exit_) {
    s["state"] = {{"waiting",
                   {{"reason", "CrashLoopBackOff"},
                    {"message", fmt::format("back-off restarting failed container {}", name_)}}}};
    s["lastState"] = Terminated(*current_exit_, started_ms_);
  } else {
    json waiting = {{"reason", waiting_reason_}};
    if (!waiting_message_.empty()) waiting["message"] = waiting_message_;
    s["state"] = {{"waiting", waiting}};
  }
  return s;
}

std::string ContainerRunner::LogPath(bool previous) const {
  int attempt = previous ? attempt_ - 1 : attempt_;
  if (attempt < 0) return "";
  return RunFile(attempt, "log");
}

}  // namespace etna::agent::runtime
