// Kubernetes label selectors (k8s.io/apimachinery/pkg/labels.Parse): lexer, parser, matching.
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "api/codec/compact_needles.h"
#include "api/codec/selectors.h"

namespace etna::api::codec {
namespace {

using Op = LabelSelector::Op;

enum class Tok {
  kEnd,
  kIdentifier,
  kDoesNotExist,  // !
  kEquals,        // =
  kDoubleEquals,  // ==
  kNotEquals,     // !=
  kGreater,       // >
  kLess,          // <
  kIn,
  kNotIn,
  kOpen,   // (
  kClose,  // )
  kComma,
};

struct Token {
  Tok tok = Tok::kEnd;
  std::string text;
};

bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Splits the selector into tokens; identifiers are runs of anything but blanks and specials.
std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    if (IsSpecial(c)) {
      auto next = [&](char n) { return i + 1 < s.size() && s[i + 1] == n; };
      if (c == '!' && next('=')) {
        out.push_back({Tok::kNotEquals, "!="}), i += 2;
      } else if (c == '=' && next('=')) {
        out.push_back({Tok::kDoubleEquals, "=="}), i += 2;
      } else {
        static constexpr std::pair<char, Tok> kSingle[] = {
            {'!', Tok::kDoesNotExist}, {'=', Tok::kEquals},  {'(', Tok::kOpen}, {')', Tok::kClose},
            {',', Tok::kComma},        {'>', Tok::kGreater}, {'<', Tok::kLess}};
        for (auto [ch, tok] : kSingle) {
          if (ch == c) out.push_back({tok, std::string(1, c)});
        }
        ++i;
      }
      continue;
    }
    size_t start = i;
    while (i < s.size() && !IsSpace(s[i]) && !IsSpecial(s[i])) ++i;
    std::string word(s.substr(start, i - start));
    Tok tok = word == "in" ? Tok::kIn : word == "notin" ? Tok::kNotIn : Tok::kIdentifier;
    out.push_back({tok, std::move(word)});
  }
  out.push_back({Tok::kEnd, ""});
  return out;
}

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A name part or label value: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 characters.
std::optional<std::string> NameError(std::string_view s, std::string_view what) {
  if (s.size() > 63) return fmt::format("{} must be no more than 63 characters", what);
  if (s.empty()) return fmt::format("{} must not be empty", what);
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) {
    return fmt::format("{} must begin and end with an alphanumeric character", what);
  }
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') {
      return fmt::format("{} may contain only alphanumerics, '-', '_' and '.'", what);
    }
  }
  return std::nullopt;
}

// A DNS-1123 subdomain: lowercase alphanumerics, '-' and '.', alphanumeric at both ends.
std::optional<std::string> PrefixError(std::string_view s) {
  if (s.empty()) return "prefix part must not be empty";
  if (s.size() > 253) return "prefix part must be no more than 253 characters";
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) {
    return "prefix part must begin and end with a lowercase alphanumeric character";
  }
  for (char c : s) {
    if (!lower_alnum(c) && c != '-' && c != '.') {
      return "prefix part may contain only lowercase alphanumerics, '-' and '.'";
    }
  }
  return std::nullopt;
}

std::optional<std::string> KeyError(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return NameError(key, "name part");
  if (auto e = PrefixError(key.substr(0, slash))) return e;
  return NameError(key.substr(slash + 1), "name part");
}

std::optional<std::string> ValueError(std::string_view value) {
  if (value.empty()) return std::nullopt;
  return NameError(value, "value");
}

std::optional<int64_t> ParseInt64(const std::string& s) {
  if (s.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size() || IsSpace(s.front())) return std::nullopt;
  return static_cast<int64_t>(v);
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), tokens_(Lex(text)) {}

  Result<std::vector<LabelSelector::Requirement>> Parse() {
    std::vector<LabelSelector::Requirement> out;
    if (Peek().tok == Tok::kEnd) return out;
    while (true) {
      ETNA_ASSIGN_OR_RETURN(LabelSelector::Requirement r, ParseRequirement());
      out.push_back(std::move(r));
      const Token& t = Next();
      if (t.tok == Tok::kEnd) return out;
      if (t.tok != Tok::kComma) return Error(fmt::format("found '{}', expected: ','", t.text));
      if (Peek().tok == Tok::kEnd) return Error("found end of input, expected: identifier");
    }
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  static std::string Shown(const Token& t) {
    return t.tok == Tok::kEnd ? "end of input" : "'" + t.text + "'";
  }
  Status Error(std::string_view detail) const {
    return Status::InvalidArgument(fmt::format("invalid label selector \"{}\": {}", text_, detail));
  }

  Result<LabelSelector::Requirement> ParseRequirement() {
    LabelSelector::Requirement r;
    bool negated = false;
    if (Peek().tok == Tok::kDoesNotExist) {
      Next();
      negated = true;
    }
    const Token& key = Next();
    if (key.tok != Tok::kIdentifier) {
      return Error(fmt::format("found {}, expected: identifier", Shown(key)));
    }
    if (auto e = KeyError(key.text)) return Error(fmt::format("key \"{}\": {}", key.text, *e));
    r.key = key.text;
    Tok op = Peek().tok;
    if (negated || op == Tok::kComma || op == Tok::kEnd) {
      r.op = negated ? Op::kDoesNotExist : Op::kExists;
      return r;
    }
    const Token& op_token = Next();
    switch (op_token.tok) {
      case Tok::kEquals:
      case Tok::kDoubleEquals:
        r.op = Op::kEquals;
        break;
      case Tok::kNotEquals:
        r.op = Op::kNotEquals;
        break;
      case Tok::kGreater:
        r.op = Op::kGreaterThan;
        break;
      case Tok::kLess:
        r.op = Op::kLessThan;
        break;
      case Tok::kIn:
        r.op = Op::kIn;
        break;
      case Tok::kNotIn:
        r.op = Op::kNotIn;
        break;
      default:
        return Error(
            fmt::format("found {}, expected: in, notin, =, ==, !=, gt, lt after key \"{}\"",
                        Shown(op_token), r.key));
    }
    if (r.op == Op::kIn || r.op == Op::kNotIn) {
      ETNA_ASSIGN_OR_RETURN(r.values, ParseValueSet());
    } else {
      ETNA_ASSIGN_OR_RETURN(std::string v, ParseSingleValue());
      r.values.push_back(std::move(v));
    }
    for (const std::string& v : r.values) {
      if (auto e = ValueError(v)) return Error(fmt::format("value \"{}\": {}", v, *e));
    }
    if (r.op == Op::kGreaterThan || r.op == Op::kLessThan) {
      if (!ParseInt64(r.values.front())) {
        return Error(fmt::format("value \"{}\" for key \"{}\": must be an integer for '{}'",
                                 r.values.front(), r.key, op_token.text));
      }
    }
    return r;
  }

  // In value position "in" and "notin" are plain words; an absent value is "".
  static bool IsWord(Tok t) { return t == Tok::kIdentifier || t == Tok::kIn || t == Tok::kNotIn; }

  Result<std::string> ParseSingleValue() {
    const Token& t = Peek();
    if (IsWord(t.tok)) return Next().text;
    if (t.tok == Tok::kComma || t.tok == Tok::kEnd) return std::string();
    return Error(fmt::format("found {}, expected: identifier", Shown(t)));
  }

  Result<std::vector<std::string>> ParseValueSet() {
    const Token& open = Next();
    if (open.tok != Tok::kOpen) return Error(fmt::format("found {}, expected: '('", Shown(open)));
    std::vector<std::string> values;
    if (Peek().tok == Tok::kClose) {
      Next();
      values.push_back("");
      return values;
    }
    // identifier (',' identifier?)* with empty items allowed: "(a,,b)" and "(a,)" hold "".
    while (true) {
      const Token& t = Peek();
      if (IsWord(t.tok)) {
        values.push_back(Next().text);
      } else if (t.tok == Tok::kComma || t.tok == Tok::kClose) {
        values.push_back("");
      } else {
        return Error(fmt::format("found {}, expected: ',', ')' or identifier", Shown(t)));
      }
      const Token& sep = Next();
      if (sep.tok == Tok::kClose) return values;
      if (sep.tok != Tok::kComma) {
        return Error(fmt::format("found {}, expected: ',' or ')'", Shown(sep)));
      }
    }
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

const std::string* LabelValue(const nlohmann::json& labels, const std::string& key,
                              std::string& scratch) {
  if (!labels.is_object()) return nullptr;
  auto it = labels.find(key);
  if (it == labels.end() || it->is_null()) return nullptr;
  if (it->is_string()) return it->get_ptr<const std::string*>();
  scratch = it->dump();
  return &scratch;
}

bool Contains(const std::vector<std::string>& values, const std::string& v) {
  for (const std::string& x : values) {
    if (x == v) return true;
  }
  return false;
}

}  // namespace

bool LabelSelector::MayMatchCompact(std::string_view compact) const {
  return EveryTermHasANeedle(needles_, compact);
}

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  Parser parser(text);
  ETNA_ASSIGN_OR_RETURN(std::vector<Requirement> requirements, parser.Parse());
  LabelSelector selector;
  selector.requirements_ = std::move(requirements);
  for (const Requirement& r : selector.requirements_) {
    std::string key = QuotedAsStored(r.key) + ":";
    if (r.op == Op::kExists) {
      selector.needles_.push_back({key});
    } else if (r.op == Op::kEquals || r.op == Op::kIn) {
      std::vector<std::string> any;
      for (const std::string& v : r.values) any.push_back(key + QuotedAsStored(v));
      selector.needles_.push_back(std::move(any));
    }
  }
  return selector;
}

bool LabelSelector::Matches(const nlohmann::json& labels) const {
  std::string scratch;
  for (const Requirement& r : requirements_) {
    const std::string* value = LabelValue(labels, r.key, scratch);
    bool ok = false;
    switch (r.op) {
      case Op::kEquals:
      case Op::kIn:
        ok = value != nullptr && Contains(r.values, *value);
        break;
      case Op::kNotEquals:
      case Op::kNotIn:
        ok = value == nullptr || !Contains(r.values, *value);
        break;
      case Op::kExists:
        ok = value != nullptr;
        break;
      case Op::kDoesNotExist:
        ok = value == nullptr;
        break;
      case Op::kGreaterThan:
      case Op::kLessThan: {
        if (value == nullptr || r.values.empty()) break;
        std::optional<int64_t> have = ParseInt64(*value);
        std::optional<int64_t> want = ParseInt64(r.values.front());
        if (!have || !want) break;
        ok = r.op == Op::kGreaterThan ? *have > *want : *have < *want;
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace etna::api::codec
