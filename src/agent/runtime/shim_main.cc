// etna_agent_shim: the container supervisor as its own small executable (tests use it; the
// etna binary runs the same RunShim as `etna agent-shim`).
#include <cstring>

#include "agent/runtime/shim.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "agent-shim") == 0) {
    return etna::agent::runtime::RunShim(argc - 1, argv + 1);
  }
  return etna::agent::runtime::RunShim(argc, argv);
}
