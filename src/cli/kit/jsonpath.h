// kubectl's JSONPath, as far as its field paths go: the values at a path (`.metadata.name`,
// `.spec.containers[*].name`, `.items[0]`, `.items[-1]`, `['a.b/c']`, `a\.b`), the "relaxed"
// forms custom-columns and --sort-by accept (`{.a.b}`, `.a.b`, `a.b`), and -o jsonpath
// templates of literal text and {expressions} ({"\n"} for text). No filters, slices or range.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::cli {

// Every value at `path` (a `[*]` fans out); none when a key or index is missing.
// InvalidArgument naming the path when it does not parse.
Result<std::vector<nlohmann::json>> JsonPathValues(const nlohmann::json& object,
                                                   std::string_view path);
// The first value at `path`, or null (also when the path does not parse).
nlohmann::json JsonPathValue(const nlohmann::json& object, std::string_view path);
// A value as kubectl's jsonpath prints it: strings bare, null empty, others as JSON.
std::string JsonPathText(const nlohmann::json& value);
// -o jsonpath=TEMPLATE: literal text, and each {expression}'s values joined by spaces.
Result<std::string> JsonPathTemplate(const nlohmann::json& object, std::string_view tmpl);
// A relaxed expression ("{.a}", ".a" or "a") as a path; InvalidArgument for an unclosed brace.
Result<std::string> RelaxedJsonPath(std::string_view expression);

}  // namespace etna::cli
