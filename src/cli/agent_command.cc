// `etna agent`: one node's agent against an API server.
//
//   etna agent --kubeconfig FILE --node-name NAME --data-dir DIR [--listen HOST:PORT]
//              [--profile FILE --profile-node NAME | --nvml-lib PATH] [--lease-seconds N]
//              [--internal-ip IP] [--cpu Q] [--memory Q]
//
// Registers the node (GPUs from NVML, or declared by a cluster profile), renews its Lease, runs
// the pods bound to it as processes and serves their logs; runs until SIGINT or SIGTERM, which
// leave the containers running for the next agent to adopt. `etna agent-shim` is the container
// supervisor the agent starts for each container (not for direct use).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "agent/agent.h"
#include "agent/gpu/nvml_source.h"
#include "agent/runtime/shim.h"
#include "cli/flags.h"
#include "client/kubeconfig.h"

namespace etna::cli {
namespace {

struct AgentFlags {
  std::string kubeconfig, node_name, data_dir, listen = "127.0.0.1:0", profile, profile_node;
  std::string nvml_lib = "libnvidia-ml.so.1", internal_ip = "127.0.0.1", cpu, memory;
  int lease_seconds = 40;
  bool nvml_lib_set = false;
};

void PrintAgentHelp(FILE* out) {
  std::fprintf(out,
               "Usage: etna agent --kubeconfig FILE --node-name NAME --data-dir DIR [flags]\n\n"
               "Runs a node: registers it with its GPUs, renews its lease, runs the pods bound\n"
               "to it as local processes and serves their logs.\n\n"
               "Flags:\n"
               "  --kubeconfig FILE      how to reach the API server\n"
               "  --node-name NAME       the Node to register (with --profile: default the\n"
               "                         --profile-node)\n"
               "  --data-dir DIR         pods' state and logs (keep it across restarts)\n"
               "  --listen HOST:PORT     logs, /metrics, /healthz, /readyz (default 127.0.0.1:0,\n"
               "                         any free port)\n"
               "  --profile FILE         a cluster profile (examples/clusters/dev.yaml): the node\n"
               "  --profile-node NAME    its node to simulate (GPUs, cpu, memory, labels)\n"
               "  --nvml-lib PATH        NVML library for real GPUs (default libnvidia-ml.so.1)\n"
               "  --lease-seconds N      node lease duration (default 40; renewed every N/4)\n"
               "  --internal-ip IP       the node's InternalIP (default 127.0.0.1)\n"
               "  --cpu Q, --memory Q    node capacity without a profile (default 32, 256Gi)\n");
}

}  // namespace

int RunAgentShim(int argc, char** argv) { return agent::runtime::RunShim(argc, argv); }

int RunAgent(int argc, char** argv) {
  AgentFlags f;
  FlagParser p("etna agent", argc, argv);
  while (p.Next()) {
    bool ok = true;
    if (p.Is("--help") || p.Is("-h")) {
      PrintAgentHelp(stdout);
      return 0;
    } else if (p.Is("--kubeconfig")) {
      ok = p.Value(&f.kubeconfig);
    } else if (p.Is("--node-name")) {
      ok = p.Value(&f.node_name);
    } else if (p.Is("--data-dir")) {
      ok = p.Value(&f.data_dir);
    } else if (p.Is("--listen")) {
      ok = p.Value(&f.listen);
    } else if (p.Is("--profile")) {
      ok = p.Value(&f.profile);
    } else if (p.Is("--profile-node")) {
      ok = p.Value(&f.profile_node);
    } else if (p.Is("--nvml-lib")) {
      ok = p.Value(&f.nvml_lib);
      f.nvml_lib_set = true;
    } else if (p.Is("--internal-ip")) {
      ok = p.Value(&f.internal_ip);
    } else if (p.Is("--cpu")) {
      ok = p.Value(&f.cpu);
    } else if (p.Is("--memory")) {
      ok = p.Value(&f.memory);
    } else if (p.Is("--lease-seconds")) {
      ok = p.IntValue(&f.lease_seconds, 1);
    } else {
      return p.Unknown(PrintAgentHelp);
    }
    if (!ok) return 1;
  }
  if (f.kubeconfig.empty() || f.data_dir.empty()) {
    std::fprintf(stderr, "etna agent: --kubeconfig and --data-dir are required\n");
    return 1;
  }
  if (!f.profile.empty() && f.nvml_lib_set) {
    std::fprintf(stderr, "etna agent: give --profile or --nvml-lib, not both\n");
    return 1;
  }
  auto config = client::LoadKubeconfig(f.kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "etna agent: %s\n", config.status().ToString().c_str());
    return 1;
  }
  agent::AgentOptions options;
  if (!f.profile.empty()) {
    if (f.profile_node.empty()) f.profile_node = f.node_name;
    if (f.profile_node.empty()) {
      std::fprintf(stderr, "etna agent: --profile needs --profile-node\n");
      return 1;
    }
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
  if (options.node.name.empty()) {
    std::fprintf(stderr, "etna agent: --node-name is required\n");
    return 1;
  }
  std::string gpu_source = options.gpu_source ? options.gpu_source->Describe() : "none";
  client::KubeConfig kc = *config;
  options.transports = [kc] { return client::MakeHttpTransport(kc); };
  options.data_dir = f.data_dir;
  options.listen = f.listen;
  options.internal_ip = f.internal_ip;
  options.lease_seconds = f.lease_seconds;

  BlockStopSignals();
  agent::Agent agent(std::move(options));
  Status started = agent.Start();
  if (!started.ok()) {
    std::fprintf(stderr, "etna agent: %s\n", started.ToString().c_str());
    return 1;
  }
  std::printf("etna agent: node %s ready (GPUs: %s), logs on port %u\n", agent.node_name().c_str(),
              gpu_source.c_str(), agent.port());
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  std::printf("etna agent: %s, stopping (containers keep running)\n", sig);
  agent.Stop();
  return 0;
}

}  // namespace etna::cli
