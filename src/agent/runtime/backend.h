// How the runs of a container are started, signalled and finished. ProcessBackend runs the
// command as a host process under the shim (pod_env.h's BuildLaunch); RuncBackend
// (runc_backend.h) runs the image in an OCI container under runc, with the shim as its reaper.
// ContainerRunner drives one container's runs through the node's backend; the backend keeps no
// state a restarted agent would need beyond what it finds on disk and in runc.
// Thread-safety: Prepare, Signal, Finish and RemovePod from the runtime's sync thread;
// Version and ExecPrefix from any thread.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/runtime/pod_env.h"
#include "agent/runtime/shim.h"
#include "common/clock.h"

namespace etna::agent::runtime {

// One run of one container: its directory <pod dir>/<container name> and its number.
struct RunRef {
  std::string container_dir;
  int attempt = 0;
};

struct RunRequest {
  const nlohmann::json& pod;
  const nlohmann::json& container;
  const PodContext& context;
  RunRef run;
};

// What Prepare decided.
struct Prepared {
  enum class State { kReady, kWaiting, kFailed };
  State state = State::kReady;
  // The container's waiting reason and message. kWaiting: Prepare is asked again at the next
  // step (ContainerCreating while the image is pulled; ErrImagePull and ImagePullBackOff,
  // whose backoff the image store keeps). kFailed: the run cannot be created as specified
  // (CreateContainerConfigError, CreateContainerError); asked again after the restart backoff.
  std::string reason;
  std::string message;
  // kReady: argv, env, working_dir and reap_pid_file (the caller sets the shim and its files).
  ShimLaunch launch;
  std::string image_id;  // containerStatus.imageID, when the backend knows it
};

// Something worth an Event on the pod (image pulls): Kubernetes' reasons and messages.
struct BackendEvent {
  std::string type;  // Normal, Warning
  std::string reason;
  std::string message;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Node.status.nodeInfo.containerRuntimeVersion: "<name>://<version>".
  virtual std::string Version() const = 0;
  // Readies a run (see Prepared for kWaiting and kFailed).
  // `events` receives what happened on the way.
  virtual Prepared Prepare(const RunRequest& request, std::vector<BackendEvent>* events) = 0;
  // Sends `signal` to the run's processes; `shim` is its shim (a process group leader).
  virtual void Signal(const RunRef& run, pid_t shim, int signal) = 0;
  // After the run ended (its exit record read): corrects the record (OOMKilled) and releases
  // what the run held. Called once per run, also for runs a previous agent started.
  virtual void Finish(const RunRef& run, ExitRecord* exit) = 0;
  // What runs a command inside the run's container (exec probes); empty for host processes.
  virtual std::vector<std::string> ExecPrefix(const RunRef& run) const = 0;
  // The pod is gone: releases what is left of it (mounts, cgroups) before its directory goes.
  virtual void RemovePod(const std::string& pod_dir) = 0;
};

// Host processes: the shim runs the container's command with the pod's environment.
class ProcessBackend : public Backend {
 public:
  std::string Version() const override { return "etna-process://0.1"; }
  Prepared Prepare(const RunRequest& request, std::vector<BackendEvent>* events) override;
  void Signal(const RunRef& run, pid_t shim, int signal) override;
  void Finish(const RunRef&, ExitRecord*) override {}
  std::vector<std::string> ExecPrefix(const RunRef&) const override { return {}; }
  void RemovePod(const std::string&) override {}
};

}  // namespace etna::agent::runtime
