#include "cli/cmd/describe.h"
namespace etna::cli {
int DescribeObject(Invocation&, const ResourceInfo&, const std::string&, const std::string&) {
  return 0;
}
void AddDescribeCommands(std::vector<Command>*) {}
void AddLogsCommands(std::vector<Command>*) {}
void AddGpuCommands(std::vector<Command>*) {}
}  // namespace etna::cli
