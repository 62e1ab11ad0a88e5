// Shared helpers for the Table tests: a fixed "now" and objects created relative to it.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string_view>

#include "api/resources/table.h"
#include "api/resources/table_printers.h"
#include "common/time.h"

namespace etna::api::resources::testing_util {

using nlohmann::json;

inline const ResourceRegistry& R() { return ResourceRegistry::Default(); }

// 2025-01-01T00:00:00Z.
inline std::chrono::system_clock::time_point Now() {
  return *internal::ParseTimestamp("2025-01-01T00:00:00Z");
}

// `object` with metadata.creationTimestamp `seconds_ago` before Now().
inline json Created(json object, int64_t seconds_ago) {
  auto t = std::chrono::floor<std::chrono::milliseconds>(Now() - std::chrono::seconds(seconds_ago));
  object["metadata"]["creationTimestamp"] = FormatRfc3339(t.time_since_epoch().count());
  return object;
}

// A one-object Table of the resource group/version/plural, rendered at Now().
inline json RenderOne(std::string_view group, std::string_view version, std::string_view plural,
                      const json& object, TableOptions options = {}) {
  const ResourceInfo* info = R().Find(group, version, plural);
  EXPECT_NE(info, nullptr) << plural;
  if (info == nullptr) return json::object();
  options.now = Now();
  return RenderTable(*info, {object}, options, "42", "");
}

}  // namespace etna::api::resources::testing_util
