#include "cli/kit/command.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace etna::cli {
namespace {

const Command* Find(const std::string& path) {
  for (const Command& c : UserCommands()) {
    if (c.path == path) return &c;
  }
  return nullptr;
}

TEST(UserCommands, TheIssuesVerbsExist) {
  for (const char* path :
       {"job run",      "job list",  "job view",   "job suspend",   "job resume",   "job delete",
        "queue create", "queue get", "queue list", "queue operate", "queue delete", "pod list",
        "apply",        "get",       "delete",     "describe",      "logs",         "wait",
        "gpus",         "top",       "explain",    "completion"}) {
    EXPECT_NE(Find(path), nullptr) << path;
  }
}

// Runs `command` on `args` (after argv[0]); returns the exit code.
int RunWith(const Command& command, std::vector<std::string> args) {
  args.insert(args.begin(), command.path);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return RunCommand(command, 1, static_cast<int>(argv.size()), argv.data());
}

// A daemon-style command: values, an integer, a boolean, no positional arguments.
struct Daemon {
  Daemon()
      : command{"daemon",
                "a test daemon",
                "etna daemon --name NAME [--count N]",
                "",
                {{"name", 0, "NAME", "a name"},
                 {"count", 0, "N", "a count", "1"},
                 {"verbose", 0, "", "say more"}},
                /*connects=*/false,
                [this](Invocation& inv) {
                  ++runs;
                  name = inv.Get("name");
                  verbose = inv.Bool("verbose");
                  std::optional<int> n = inv.Int("count", 1);
                  if (!n) return kUsageExitCode;
                  count = *n;
                  return 0;
                },
                /*takes_args=*/false} {}

  Command command;
  int runs = 0, count = 0;
  std::string name;
  bool verbose = false;
};

TEST(RunCommand, ValuesIntegersBooleansAndDefaults) {
  Daemon d;
  EXPECT_EQ(RunWith(d.command, {"--name", "a", "--count", "7", "--verbose"}), 0);
  EXPECT_EQ(d.name, "a");
  EXPECT_EQ(d.count, 7);
  EXPECT_TRUE(d.verbose);
  EXPECT_EQ(RunWith(d.command, {"--name=b"}), 0);
  EXPECT_EQ(d.name, "b");
  EXPECT_EQ(d.count, 1);  // the declared default
  EXPECT_FALSE(d.verbose);
}

TEST(RunCommand, UsageErrorsExitTwoWithoutRunning) {
  Daemon d;
  EXPECT_EQ(RunWith(d.command, {"--name", "a", "--bad"}), kUsageExitCode);  // unknown flag
  EXPECT_EQ(RunWith(d.command, {"--name"}), kUsageExitCode);                // missing value
  EXPECT_EQ(RunWith(d.command, {"stray"}), kUsageExitCode);                 // no arguments taken
  EXPECT_EQ(RunWith(d.command, {"--verbose=maybe"}), kUsageExitCode);       // booleans take none
  EXPECT_EQ(d.runs, 0);
  EXPECT_EQ(RunWith(d.command, {"--count", "0"}), kUsageExitCode);  // a bad value
  EXPECT_EQ(RunWith(d.command, {"--count", "7x"}), kUsageExitCode);
  EXPECT_EQ(d.runs, 2);
  EXPECT_EQ(d.count, 0);
  EXPECT_EQ(RunWith(d.command, {"--help"}), 0);
  EXPECT_EQ(d.runs, 2);
}

TEST(RunUserCommand, UsageErrorsExitTwo) {
  int rc = 0;
  std::vector<std::string> args = {"etna", "get", "vj", "--bogus"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ASSERT_TRUE(RunUserCommand(static_cast<int>(argv.size()), argv.data(), &rc));
  EXPECT_EQ(rc, kUsageExitCode);
  args = {"etna", "job", "frobnicate"};
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  ASSERT_TRUE(RunUserCommand(static_cast<int>(argv.size()), argv.data(), &rc));
  EXPECT_EQ(rc, kUsageExitCode);
}

TEST(CommandHelp, ListsUsageAndEveryFlag) {
  for (const Command& c : UserCommands()) {
    std::string help = CommandHelp(c);
    EXPECT_NE(help.find("Usage:\n  etna "), std::string::npos) << c.path;
    for (const Flag& f : c.flags) {
      EXPECT_NE(help.find("--" + f.name), std::string::npos) << c.path << " --" << f.name;
    }
    EXPECT_NE(help.find("--help"), std::string::npos) << c.path;
  }
  // Connection flags where they apply; vcctl's -n is the queue's name for queue commands.
  EXPECT_NE(CommandHelp(*Find("get")).find("-n, --namespace NS"), std::string::npos);
  EXPECT_NE(CommandHelp(*Find("get")).find("--kubeconfig FILE"), std::string::npos);
  EXPECT_NE(CommandHelp(*Find("queue create")).find("-n, --name NAME"), std::string::npos);
  EXPECT_EQ(CommandHelp(*Find("queue create")).find("--namespace"), std::string::npos);
}

TEST(CommandHelp, DefaultsAreShown) {
  std::string help = CommandHelp(*Find("job run"));
  EXPECT_NE(help.find("(default cpu=1000m,memory=100Mi)"), std::string::npos);
  EXPECT_NE(help.find("-S, --scheduler NAME"), std::string::npos);
}

TEST(UserCommandGroups, OnePerTopLevelWord) {
  std::set<std::string> words;
  for (const auto& [word, summary] : UserCommandGroups()) {
    EXPECT_TRUE(words.insert(word).second) << word;
    EXPECT_FALSE(summary.empty()) << word;
  }
  EXPECT_TRUE(words.count("job") && words.count("queue") && words.count("pod") &&
              words.count("get") && words.count("gpus"));
}

TEST(CompletionScript, BashAndZshKnowTheTree) {
  for (const char* shell : {"bash", "zsh"}) {
    std::string script = CompletionScript(shell);
    EXPECT_NE(script.find("\"queue\") _etna_list=\"create delete get list operate\""),
              std::string::npos)
        << shell;
    EXPECT_NE(script.find("--action"), std::string::npos) << shell;
  }
  EXPECT_NE(CompletionScript("bash").find("complete -F _etna etna"), std::string::npos);
  EXPECT_NE(CompletionScript("zsh").find("#compdef etna"), std::string::npos);
  EXPECT_EQ(CompletionScript("fish"), "");
}

}  // namespace
}  // namespace etna::cli
