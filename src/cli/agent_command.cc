// `etna agent`: one node's agent against an API server.
//
//   etna agent --kubeconfig FILE --node-name NAME --data-dir DIR [--listen HOST:PORT]
//              [--profile FILE --profile-node NAME | --nvml-lib PATH] [--lease-seconds N]
//              [--fence-margin DURATION]
//              [--internal-ip IP] [--cpu Q] [--memory Q] [--node-labels K=V,...]
//              [--drain-on-stop] [--runtime process|container] [--insecure-registry H:P]...
//
// Registers the node (GPUs from NVML, or declared by a cluster profile), renews its Lease, runs
// the pods bound to it and serves their logs; runs until SIGINT or SIGTERM, which leave the
// containers running for the next agent to adopt (or, with --drain-on-stop, stop them first). `etna
// agent-shim` is the container supervisor the agent starts for each container (not for direct use).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "agent/agent.h"
#include "agent/gpu/nvml_source.h"
#include "agent/runtime/shim.h"
#include "cli/flags.h"
#include "cli/kit/command.h"
#include "cli/runtime_flags.h"
#include "client/kubeconfig.h"

namespace etna::cli {

int RunAgentShim(int argc, char** argv) { return agent::runtime::RunShim(argc, argv); }

namespace {

struct AgentFlags {
  explicit AgentFlags(const Invocation& inv)
      : kubeconfig(inv.Get("kubeconfig")),
        node_name(inv.Get("node-name")),
        data_dir(inv.Get("data-dir")),
        listen(inv.Get("listen")),
        profile(inv.Get("profile")),
        profile_node(inv.Get("profile-node")),
        nvml_lib(inv.Get("nvml-lib")),
        internal_ip(inv.Get("internal-ip")),
        cpu(inv.Get("cpu")),
        memory(inv.Get("memory")),
        node_labels(inv.Get("node-labels")),
        nvml_lib_set(inv.Has("nvml-lib")),
        drain_on_stop(inv.Has("drain-on-stop")) {}

  std::string kubeconfig, node_name, data_dir, listen, profile, profile_node, nvml_lib;
  std::string internal_ip, cpu, memory, node_labels;
  bool nvml_lib_set, drain_on_stop;
};

// --node-labels "k=v,k2=v2" (the kubelet's flag) into `labels`; false naming the bad item.
bool ParseNodeLabels(const std::string& text, std::map<std::string, std::string>* labels,
                     std::string* error) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      *error = fmt::format("--node-labels: \"{}\" is not KEY=VALUE", item);
      return false;
    }
    (*labels)[item.substr(0, eq)] = item.substr(eq + 1);
    start = end + 1;
  }
  return true;
}

int RunNode(Invocation& inv) {
  AgentFlags f(inv);
  std::optional<int> lease_seconds = inv.Int("lease-seconds", 1);
  if (!lease_seconds) return kUsageExitCode;
  std::chrono::milliseconds fence_margin{0};
  if (std::string margin = inv.Get("fence-margin"); !margin.empty()) {
    auto parsed = ParseDuration(margin);
    if (!parsed.ok()) return inv.UsageError("--fence-margin: " + parsed.status().message());
    if (*parsed <= std::chrono::milliseconds(0) ||
        *parsed >= std::chrono::seconds(*lease_seconds)) {
      return inv.UsageError(
          fmt::format("--fence-margin {}: must be more than 0 and less than "
                      "--lease-seconds ({} s)",
                      margin, *lease_seconds));
    }
    fence_margin = *parsed;
  }
  if (f.kubeconfig.empty() || f.data_dir.empty()) {
    return inv.UsageError("--kubeconfig and --data-dir are required");
  }
  if (!f.profile.empty() && f.nvml_lib_set) {
    return inv.UsageError("give --profile or --nvml-lib, not both");
  }
  auto config = client::LoadKubeconfig(f.kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "etna agent: %s\n", config.status().ToString().c_str());
    return 1;
  }
  if (inv.Has("server")) {
    if (Status st = client::SetServers(*config, inv.Get("server")); !st.ok()) {
      return inv.UsageError(st.message());
    }
  }
  agent::AgentOptions options;
  if (!f.profile.empty()) {
    if (f.profile_node.empty()) f.profile_node = f.node_name;
    if (f.profile_node.empty()) return inv.UsageError("--profile needs --profile-node");
    auto nodes = agent::LoadClusterProfile(f.profile);
    if (!nodes.ok()) {
      std::fprintf(stderr, "etna agent: %s\n", nodes.status().ToString().c_str());
      return 1;
    }
    auto node = agent::FindProfileNode(*nodes, f.profile_node);
    if (!node.ok()) {
      std::fprintf(stderr, "etna agent: %s\n", node.status().ToString().c_str());
      return 1;
    }
    options.node = *node;
    options.gpu_source = std::make_unique<agent::InventoryGpuSource>(node->gpus);
  } else {
    if (!f.cpu.empty()) options.node.cpu = f.cpu;
    if (!f.memory.empty()) options.node.memory = f.memory;
    auto nvml = agent::NvmlGpuSource::Open(f.nvml_lib);
    if (nvml.ok()) {
      options.gpu_source = std::move(*nvml);
    } else if (f.nvml_lib_set) {
      std::fprintf(stderr, "etna agent: %s\n", nvml.status().ToString().c_str());
      return 1;
    } else {
      std::fprintf(stderr, "etna agent: no GPUs (%s)\n", nvml.status().message().c_str());
    }
  }
  if (!f.node_name.empty()) options.node.name = f.node_name;
  if (std::string error; !ParseNodeLabels(f.node_labels, &options.node.labels, &error)) {
    return inv.UsageError(error);
  }
  options.stop_pods = f.drain_on_stop;
  if (std::string error = ApplyRuntimeFlags(inv, &options); !error.empty()) {
    return inv.UsageError(error);
  }
  if (options.node.name.empty()) return inv.UsageError("--node-name is required");
  std::string gpu_source = options.gpu_source ? options.gpu_source->Describe() : "none";
  client::KubeConfig kc = *config;
  // A request stalled by a partition holds the pod loop: it may not outlast half the fence
  // margin (at least a second: shorter fails requests on a busy machine), so the fence still
  // goes up before the node controller declares the pods lost.
  const std::chrono::milliseconds margin =
      fence_margin.count() > 0 ? fence_margin : std::chrono::milliseconds(*lease_seconds * 250);
  kc.timeout = std::min(kc.timeout, std::max(margin / 2, std::chrono::milliseconds(1000)));
  options.transports = [kc] { return client::MakeHttpTransport(kc); };
  options.data_dir = f.data_dir;
  options.listen = f.listen;
  options.internal_ip = f.internal_ip;
  options.api_host = kc.host;
  options.api_port = kc.port;
  options.api_ca_pem = kc.ca_pem;
  options.lease_seconds = *lease_seconds;
  options.fence_margin = fence_margin;

  BlockStopSignals();
  agent::Agent agent(std::move(options));
  Status started = agent.Start();
  if (!started.ok()) {
    std::fprintf(stderr, "etna agent: %s\n", started.ToString().c_str());
    return 1;
  }
  std::printf("etna agent: node %s ready (GPUs: %s, runtime: %s), logs on port %u\n",
              agent.node_name().c_str(), gpu_source.c_str(), agent.runtime_version().c_str(),
              agent.port());
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  std::printf("etna agent: %s, stopping%s\n", sig,
              f.drain_on_stop ? ": its pods first (--drain-on-stop)"
                              : " (containers keep running for the next agent to adopt)");
  agent.Stop();
  return 0;
}

const Command& AgentCommand() {
  static const Command command = {
      "agent",
      "run a node: GPUs, lease, pods as processes",
      "etna agent --kubeconfig FILE --node-name NAME --data-dir DIR [flags]",
      "Runs a node: registers it with its GPUs, renews its lease, runs the pods bound\n"
      "to it as local processes and serves their logs.",
      WithRuntimeFlags(
          {
              {"kubeconfig", 0, "FILE", "how to reach the API server"},
              {"server", 0, "URL[,URL...]",
               "the API servers to use instead of the kubeconfig's (same CA and token); when one "
               "cannot be reached the next is used (docs/ha.md)"},
              {"node-name", 0, "NAME",
               "the Node to register (with --profile: default the --profile-node)"},
              {"data-dir", 0, "DIR", "pods' state and logs (keep it across restarts)"},
              {"listen", 0, "HOST:PORT",
               "logs, /metrics, /healthz, /readyz (port 0: any free port)", "127.0.0.1:0"},
              {"profile", 0, "FILE", "a cluster profile (examples/clusters/dev.yaml): the node"},
              {"profile-node", 0, "NAME", "its node to simulate (GPUs, cpu, memory, labels)"},
              {"nvml-lib", 0, "PATH", "NVML library for real GPUs", "libnvidia-ml.so.1"},
              {"lease-seconds", 0, "N", "node lease duration (renewed every N/4)", "40"},
              {"fence-margin", 0, "DURATION",
               "stop this node's pods when no lease renewal has succeeded for the lease minus "
               "this (default: a quarter of the lease); pods annotated "
               "etna.io/survive-partition: \"true\" keep running"},
              {"internal-ip", 0, "IP", "the node's InternalIP", "127.0.0.1"},
              {"cpu", 0, "Q", "node capacity without a profile (default 32)"},
              {"memory", 0, "Q", "node capacity without a profile (default 256Gi)"},
              {"node-labels", 0, "K=V,...",
               "labels for the Node (topology.kubernetes.io/zone=..., region, ...)"},
              {"drain-on-stop", 0, "",
               "on SIGINT/SIGTERM stop every pod (grace periods honoured, reported Failed with "
               "reason Shutdown) instead of leaving them running for the next agent"},
          },
          true),
      /*connects=*/false,
      RunNode,
      /*takes_args=*/false};
  return command;
}

}  // namespace

int RunAgent(int argc, char** argv) { return RunCommand(AgentCommand(), 1, argc, argv); }

}  // namespace etna::cli
