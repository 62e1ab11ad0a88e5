// etna: one binary, subcommands per part.
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cli/flags.h"

namespace etna::cli {
int RunSim(int argc, char** argv);
int RunServer(int argc, char** argv);
int RunAgent(int argc, char** argv);
int RunAgentShim(int argc, char** argv);
int RunControllers(int argc, char** argv);
int RunScheduler(int argc, char** argv);
int RunDev(int argc, char** argv);
bool RunUserCommand(int argc, char** argv, int* exit_code);  // job, queue, get, apply, ...
std::vector<std::pair<std::string, std::string>> UserCommandGroups();
}  // namespace etna::cli

namespace {

void PrintHelp() {
  std::printf(
      "etna: a GPU batch scheduler that speaks Volcano's and Kubernetes' objects.\n\n"
      "Usage: etna <command> [flags]\n\n"
      "Commands:\n"
      "  dev          a whole cluster in one process: server, scheduler, controllers and\n"
      "               simulated GPU nodes running pods as processes (etna dev --help)\n"
      "  server       run the Kubernetes-compatible API server (etna server --help)\n"
      "  scheduler    run the scheduler against an API server (etna scheduler --help)\n"
      "  controllers  run the job, queue, podgroup and node controllers (etna controllers --help)\n"
      "  agent        run a node: GPUs, lease, pods as processes (etna agent --help)\n"
      "  sim          replay traces through the scheduler: sim replay|compare|generate in\n"
      "               virtual time, sim openb (etna sim replay --help)\n"
      "  version      print the version\n"
      "  help         show this help\n");
  std::printf("\nUser commands (against the API server of your kubeconfig):\n");
  for (const auto& [name, summary] : etna::cli::UserCommandGroups()) {
    std::printf("  %-12s %s\n", name.c_str(), summary.c_str());
  }
  std::printf(
      "\nThey connect with --kubeconfig FILE (else $KUBECONFIG, else ~/.etna/kubeconfig) and\n"
      "take -n/--namespace NS and -A/--all-namespaces, also before the command\n"
      "(etna -n team-a get pods). Shell completion: source <(etna completion bash).\n");
  std::printf("\nRun 'etna <command> --help' for a command's flags.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") ||
      !std::strcmp(argv[1], "-h")) {
    PrintHelp();
    return argc < 2 ? 2 : 0;  // no command is a usage error
  }
  std::string cmd = argv[1];
  if (cmd == "version" || cmd == "--version") {
    std::printf("etna 0.1.0\n");
    return 0;
  }
  if (cmd == "server" || cmd == "dev" || cmd == "scheduler" || cmd == "controllers" ||
      cmd == "agent") {
    etna::cli::RaiseOpenFileLimit();  // watches and connections by the thousand
  }
  if (cmd == "sim") return etna::cli::RunSim(argc - 1, argv + 1);
  if (cmd == "server") return etna::cli::RunServer(argc - 1, argv + 1);
  if (cmd == "agent") return etna::cli::RunAgent(argc - 1, argv + 1);
  if (cmd == "agent-shim") return etna::cli::RunAgentShim(argc - 1, argv + 1);
  if (cmd == "controllers") return etna::cli::RunControllers(argc - 1, argv + 1);
  if (cmd == "scheduler") return etna::cli::RunScheduler(argc - 1, argv + 1);
  if (cmd == "dev") return etna::cli::RunDev(argc - 1, argv + 1);
  if (int rc = 0; etna::cli::RunUserCommand(argc, argv, &rc)) return rc;
  std::fprintf(stderr, "etna: unknown command \"%s\" (see etna help)\n", cmd.c_str());
  return 2;
}
