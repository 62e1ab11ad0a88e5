#include "cli/kit/command.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "api/resources/registry.h"

namespace etna::cli {

namespace {

const std::vector<Flag>& ConnectionFlags() {
  static const std::vector<Flag> flags = {
      {"kubeconfig", 0, "FILE",
       "kubeconfig to use (default: $KUBECONFIG, then ~/.etna/kubeconfig)"},
      {"help", 'h', "", "show this help"},
  };
  return flags;
}

const std::vector<Flag>& NamespaceFlags() {
  static const std::vector<Flag> flags = {
      {"namespace", 'n', "NS", "the namespace (default: the kubeconfig's, else default)"},
      {"all-namespaces", 'A', "", "every namespace"},
  };
  return flags;
}

int ReportUsageError(const Command& command, const std::string& message) {
  std::fprintf(stderr, "error: %s\nSee 'etna %s --help' for usage.\n", message.c_str(),
               command.path.c_str());
  return kUsageExitCode;
}

bool UsesNamespace(const Command& c) {
  return c.connects && std::none_of(c.flags.begin(), c.flags.end(),
                                    [](const Flag& f) { return f.short_name == 'n'; });
}

std::vector<Flag> AllFlags(const Command& c) {
  std::vector<Flag> all = c.flags;
  if (UsesNamespace(c)) all.insert(all.end(), NamespaceFlags().begin(), NamespaceFlags().end());
  if (c.connects) {
    all.push_back(ConnectionFlags()[0]);
  }
  all.push_back(ConnectionFlags()[1]);
  return all;
}

const Flag* FindFlag(const std::vector<Flag>& flags, std::string_view name, char short_name) {
  for (const Flag& f : flags) {
    if ((!name.empty() && f.name == name) || (short_name && f.short_name == short_name)) return &f;
  }
  return nullptr;
}

}  // namespace

Invocation::Invocation(const Command* command,
                       std::map<std::string, std::vector<std::string>> values,
                       std::vector<std::string> args)
    : command_(command), values_(std::move(values)), args_(std::move(args)) {}

bool Invocation::Has(const std::string& flag) const { return values_.count(flag) > 0; }

std::string Invocation::Get(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it != values_.end() && !it->second.empty()) return it->second.back();
  for (const Flag& f : command_->flags) {
    if (f.name == flag) return f.default_value;
  }
  return "";
}

std::optional<int> Invocation::Int(const std::string& flag, int min) const {
  std::string text = Get(flag);
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min) {
    UsageError(fmt::format("--{}: \"{}\" must be an integer >= {}", flag, text, min));
    return std::nullopt;
  }
  return value;
}

std::optional<double> Invocation::Number(const std::string& flag, double min) const {
  std::string text = Get(flag);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      !(value >= min)) {
    UsageError(fmt::format("--{}: \"{}\" must be a finite number >= {}", flag, text, min));
    return std::nullopt;
  }
  return value;
}

std::vector<std::string> Invocation::GetAll(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Invocation::Namespace() {
  if (Has("namespace") && UsesNamespace(*command_)) return Get("namespace");
  if (Api* a = api()) return a->config().ns.empty() ? "default" : a->config().ns;
  return "default";
}

Api* Invocation::api() {
  if (api_) return api_.get();
  if (api_failed_) return nullptr;
  auto connected = Api::Connect(Get("kubeconfig"));
  if (!connected.ok()) {
    api_failed_ = true;
    std::fprintf(stderr, "%s\n", connected.status().message().c_str());
    return nullptr;
  }
  api_ = std::move(*connected);
  return api_.get();
}

int Invocation::UsageError(const std::string& message) const {
  return ReportUsageError(*command_, message);
}

int Invocation::Fail(const std::string& line) const {
  std::fprintf(stderr, "%s\n", line.c_str());
  return 1;
}

const std::vector<Command>& UserCommands() {
  static const std::vector<Command> commands = [] {
    std::vector<Command> all;
    AddJobCommands(&all);
    AddQueueCommands(&all);
    AddGetCommands(&all);
    AddApplyCommands(&all);
    AddDescribeCommands(&all);
    AddLogsCommands(&all);
    AddGpuCommands(&all);
    AddUsageCommands(&all);
    AddExplainCommands(&all);
    AddCompletionCommands(&all);
    return all;
  }();
  return commands;
}

std::vector<std::pair<std::string, std::string>> UserCommandGroups() {
  static const std::map<std::string, std::string> kGroupSummaries = {
      {"job", "Volcano jobs as vcctl: run, list, view, suspend, resume, delete"},
      {"queue", "queues as vcctl: create, get, list, operate, delete"},
      {"pod", "pods of Volcano jobs as vcctl: list"},
  };
  std::vector<std::pair<std::string, std::string>> groups;
  std::set<std::string> seen;
  for (const Command& c : UserCommands()) {
    std::string word = c.path.substr(0, c.path.find(' '));
    if (!seen.insert(word).second) continue;
    auto it = kGroupSummaries.find(word);
    groups.emplace_back(word, it != kGroupSummaries.end() ? it->second : c.summary);
  }
  return groups;
}

std::string CommandHelp(const Command& c) {
  std::string out = c.summary + "\n\nUsage:\n  " + c.usage + "\n";
  if (!c.details.empty()) out += "\n" + c.details + "\n";
  std::vector<std::pair<std::string, std::string>> lines;
  size_t width = 0;
  for (const Flag& f : AllFlags(c)) {
    std::string left = f.short_name ? fmt::format("  -{}, --{}", f.short_name, f.name)
                                    : fmt::format("      --{}", f.name);
    if (!f.value_name.empty()) left += " " + f.value_name;
    std::string right = f.help;
    if (!f.default_value.empty()) right += fmt::format(" (default {})", f.default_value);
    width = std::max(width, left.size());
    lines.emplace_back(left, right);
  }
  out += "\nFlags:\n";
  for (auto& [left, right] : lines) {
    out += left + std::string(width + 3 - left.size(), ' ') + right + "\n";
  }
  return out;
}

namespace {

// The commands whose path starts with `prefix` words ("job"): for `etna job --help`.
std::string GroupHelp(const std::string& word) {
  std::string out = "Usage:\n  etna " + word + " <command> [flags]\n\nCommands:\n";
  for (const Command& c : UserCommands()) {
    if (c.path.rfind(word + " ", 0) != 0) continue;
    out += fmt::format("  {:<10}{}\n", c.path.substr(word.size() + 1), c.summary);
  }
  out += fmt::format("\nRun 'etna {} <command> --help' for a command's flags.\n", word);
  return out;
}

}  // namespace

bool RunUserCommand(int argc, char** argv, int* exit_code) {
  if (argc < 2) return false;
  // Connection flags may come before the command (`etna -n team get pods`): move them after.
  std::vector<char*> reordered = {argv[0]};
  std::vector<char*> leading;
  int first = 1;
  while (first < argc && argv[first][0] == '-') {
    std::string a = argv[first];
    bool takes_value = a == "-n" || a == "--namespace" || a == "--kubeconfig";
    leading.push_back(argv[first++]);
    if (takes_value && first < argc) leading.push_back(argv[first++]);
  }
  if (!leading.empty() && first < argc) {
    for (int i = first; i < argc; ++i) reordered.push_back(argv[i]);
    reordered.insert(reordered.end(), leading.begin(), leading.end());
    return RunUserCommand(static_cast<int>(reordered.size()), reordered.data(), exit_code);
  }
  std::string word = argv[1];
  bool known = false;
  for (const Command& c : UserCommands()) {
    if (c.path == word || c.path.rfind(word + " ", 0) == 0) known = true;
  }
  if (!known) return false;
  // The longest command path matching the leading words.
  const Command* command = nullptr;
  int consumed = 0;
  for (const Command& c : UserCommands()) {
    std::string path;
    for (int i = 1; i < argc && i <= 3; ++i) {
      path += (i > 1 ? " " : "") + std::string(argv[i]);
      if (path == c.path && i > consumed) {
        command = &c;
        consumed = i;
      }
    }
  }
  if (command == nullptr) {
    bool help = argc < 3 || std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h";
    std::fputs(GroupHelp(word).c_str(), help ? stdout : stderr);
    if (!help) std::fprintf(stderr, "error: unknown command \"%s %s\"\n", word.c_str(), argv[2]);
    *exit_code = help ? 0 : kUsageExitCode;
    return true;
  }
  *exit_code = RunCommand(*command, consumed + 1, argc, argv);
  return true;
}

int RunCommand(const Command& command, int first, int argc, char** argv) {
  std::vector<Flag> flags = AllFlags(command);
  std::map<std::string, std::vector<std::string>> values;
  std::vector<std::string> args;
  auto usage_error = [&](const std::string& message) { return ReportUsageError(command, message); };
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      for (++i; i < argc; ++i) args.push_back(argv[i]);
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      args.push_back(a);
      continue;
    }
    const Flag* flag = nullptr;
    std::string value;
    bool has_value = false;
    if (a[1] == '-') {
      std::string name = a.substr(2);
      if (size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_value = true;
      }
      flag = FindFlag(flags, name, 0);
      if (!flag) return usage_error("unknown flag: --" + name);
    } else {
      flag = FindFlag(flags, "", a[1]);
      if (!flag) return usage_error(fmt::format("unknown shorthand flag: '{}' in {}", a[1], a));
      if (a.size() > 2) {
        value = a.substr(a[2] == '=' ? 3 : 2);
        has_value = true;
      }
    }
    if (flag->name == "help") {
      std::fputs(CommandHelp(command).c_str(), stdout);
      return 0;
    }
    if (flag->value_name.empty()) {
      if (has_value && value != "true") {
        if (value == "false") continue;
        return usage_error(fmt::format("flag --{} takes no value", flag->name));
      }
      values[flag->name].push_back("true");
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc)
        return usage_error(fmt::format("flag needs an argument: --{}", flag->name));
      value = argv[++i];
    }
    values[flag->name].push_back(value);
  }
  if (!command.takes_args && !args.empty()) {
    return usage_error(fmt::format("unexpected argument \"{}\"", args.front()));
  }
  Invocation invocation(&command, std::move(values), std::move(args));
  return invocation.command().run(invocation);
}

std::string CompletionScript(const std::string& shell) {
  // Words per command path prefix: "" → top-level words, "job" → its verbs, and each full
  // path's flags.
  std::map<std::string, std::set<std::string>> words;
  for (const Command& c : UserCommands()) {
    std::string prefix;
    size_t start = 0;
    while (true) {
      size_t sp = c.path.find(' ', start);
      std::string word = c.path.substr(start, sp - start);
      words[prefix].insert(word);
      prefix = prefix.empty() ? word : prefix + " " + word;
      if (sp == std::string::npos) break;
      start = sp + 1;
    }
    for (const Flag& f : AllFlags(c)) words[c.path].insert("--" + f.name);
  }
  for (const char* extra :
       {"dev", "server", "scheduler", "controllers", "agent", "sim", "version", "help"}) {
    words[""].insert(extra);
  }
  // The resource types after the kubectl-style verbs.
  for (const auto& info : api::resources::ResourceRegistry::Default().All()) {
    if (info.computed) continue;
    for (const char* verb : {"get", "delete", "describe", "wait"}) words[verb].insert(info.plural);
  }
  words["completion"].insert({"bash", "zsh"});
  std::string cases;
  for (const auto& [prefix, set] : words) {
    std::string list;
    for (const std::string& w : set) list += (list.empty() ? "" : " ") + w;
    cases += fmt::format("    \"{}\") _etna_list=\"{}\" ;;\n", prefix, list);
  }
  // Variable names avoid zsh's special parameters (path, words): the script serves both shells.
  std::string body = fmt::format(
      "_etna_words() {{\n"
      "  local _etna_list=\"\"\n"
      "  case \"$1\" in\n{}"
      "  esac\n"
      "  echo \"$_etna_list\"\n"
      "}}\n"
      "_etna_path() {{\n"
      "  local _etna_cmd=\"\" _etna_w _etna_next\n"
      "  for _etna_w in \"$@\"; do\n"
      "    case \"$_etna_w\" in -*) break ;; esac\n"
      "    _etna_next=\"${{_etna_cmd:+$_etna_cmd }}$_etna_w\"\n"
      "    [ -n \"$(_etna_words \"$_etna_next\")\" ] || break\n"
      "    _etna_cmd=\"$_etna_next\"\n"
      "  done\n"
      "  echo \"$_etna_cmd\"\n"
      "}}\n",
      cases);
  if (shell == "bash") {
    return "# etna bash completion: source <(etna completion bash)\n" + body +
           "_etna() {\n"
           "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd\n"
           "  cmd=$(_etna_path \"${COMP_WORDS[@]:1:COMP_CWORD-1}\")\n"
           "  COMPREPLY=($(compgen -W \"$(_etna_words \"$cmd\")\" -- \"$cur\"))\n"
           "}\n"
           "complete -F _etna etna\n";
  }
  if (shell == "zsh") {
    return "#compdef etna\n# etna zsh completion: source <(etna completion zsh)\n" + body +
           "_etna() {\n"
           "  local cmd\n"
           "  cmd=$(_etna_path \"${(@)words[2,CURRENT-1]}\")\n"
           "  compadd -- ${=$(_etna_words \"$cmd\")}\n"
           "}\n"
           "if [ \"$funcstack[1]\" = \"_etna\" ]; then _etna \"$@\"; else compdef _etna etna; fi\n";
  }
  return "";
}

void AddCompletionCommands(std::vector<Command>* out) {
  out->push_back({"completion",
                  "print a shell completion script (bash or zsh)",
                  "etna completion bash|zsh",
                  "Load it in the current shell with: source <(etna completion bash)",
                  {},
                  /*connects=*/false,
                  [](Invocation& inv) {
                    if (inv.args().size() != 1)
                      return inv.UsageError("name one shell: bash or zsh");
                    std::string script = CompletionScript(inv.args()[0]);
                    if (script.empty()) {
                      return inv.UsageError("unsupported shell \"" + inv.args()[0] +
                                            "\" (bash or zsh)");
                    }
                    std::fputs(script.c_str(), stdout);
                    return 0;
                  }});
}

}  // namespace etna::cli
