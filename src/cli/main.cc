// etna: one binary, subcommands per part. Later issues add agent, dev, job, queue, ...
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace etna::cli {
int RunDemo(int argc, char** argv);
int RunSim(int argc, char** argv);
int RunServer(int argc, char** argv);
bool RunUserCommand(int argc, char** argv, int* exit_code);  // job, queue, get, apply, ...
std::vector<std::pair<std::string, std::string>> UserCommandGroups();
}  // namespace etna::cli

namespace {

void PrintHelp() {
  std::printf(
      "etna: a GPU batch scheduler that speaks Volcano's and Kubernetes' objects.\n\n"
      "Usage: etna <command> [flags]\n\n"
      "Commands:\n"
      "  demo      run one scheduling cycle on a built-in cluster and print the decision\n"
      "  sim       replay a cluster trace through the scheduler (etna sim openb --help)\n"
      "  server    run the Kubernetes-compatible API server (etna server --help)\n"
      "  version   print the version\n"
      "  help      show this help\n");
  std::printf("\nUser commands (against the API server of your kubeconfig):\n");
  for (const auto& [name, summary] : etna::cli::UserCommandGroups()) {
    std::printf("  %-11s %s\n", name.c_str(), summary.c_str());
  }
  std::printf("\nRun 'etna <command> --help' for a command's flags.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") ||
      !std::strcmp(argv[1], "-h")) {
    PrintHelp();
    return argc < 2 ? 1 : 0;
  }
  std::string cmd = argv[1];
  if (cmd == "version" || cmd == "--version") {
    std::printf("etna 0.1.0\n");
    return 0;
  }
  if (cmd == "demo") return etna::cli::RunDemo(argc - 1, argv + 1);
  if (cmd == "sim") return etna::cli::RunSim(argc - 1, argv + 1);
  if (cmd == "server") return etna::cli::RunServer(argc - 1, argv + 1);
  if (int rc = 0; etna::cli::RunUserCommand(argc, argv, &rc)) return rc;
  std::fprintf(stderr, "etna: unknown command \"%s\" (see etna help)\n", cmd.c_str());
  return 1;
}
