// Table output for `kubectl get` (meta.k8s.io/v1 Table), rendered by the server.
//
// Columns come from ResourceInfo::columns; each cell is computed per kind the way Kubernetes'
// printers or Volcano's CRD printer columns do it (Pod READY "1/2", STATUS with reasons,
// RESTARTS; Job STATUS from .status.state.phase; Age as kubectl's HumanDuration: 45s, 5m30s,
// 3h20m, 3d4h, 2y30d). A missing value is null. Each row carries `object`: PartialObjectMetadata
// by default, the full object when include_object is "Object", none for "None".
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/resources/registry.h"

namespace etna::api::resources {

// Kubernetes' duration.HumanDuration.
std::string HumanDuration(std::chrono::seconds d);

// Whether an Accept header asks for a Table ("as=Table").
bool WantsTable(std::string_view accept);

struct TableOptions {
  std::string include_object = "Metadata";    // "None", "Metadata" or "Object"
  bool with_column_definitions = true;        // false for watch events after the first
  std::chrono::system_clock::time_point now;  // Age is measured to it; the epoch: the clock
};

// A Table for `objects` (each a full stored object, metadata.resourceVersion set).
nlohmann::json RenderTable(const ResourceInfo& info, const std::vector<nlohmann::json>& objects,
                           const TableOptions& options, std::string_view resource_version,
                           std::string_view continue_token);

}  // namespace etna::api::resources
