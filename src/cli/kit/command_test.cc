#include "cli/kit/command.h"

#include <gtest/gtest.h>

#include <set>

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
