// Per-kind Table cells, as Kubernetes' printers (pkg/printers/internalversion) and the CRD
// table convertor compute them (internal to resources/). Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/resources/registry.h"
#include "api/types/fields.h"

namespace etna::api::resources::internal {

using Clock = std::chrono::system_clock;
using nlohmann::json;

// An RFC 3339 timestamp (common/time.h's ParseRfc3339), to whole seconds.
std::optional<Clock::time_point> ParseTimestamp(std::string_view text);

// kubectl's translateTimestampSince: "<unknown>" when missing or unparsable, else HumanDuration.
std::string TimestampSince(const json* timestamp, Clock::time_point now);

// The lenient field readers of api/types (fields.h).
using api::types::Array;
using api::types::Bool;
using api::types::Find;
using api::types::Integer;
using api::types::String;

// A row's cells for a kind with a built-in printer; nullopt for other kinds.
std::optional<json> BuiltInCells(const ResourceInfo& info, const json& object,
                                 Clock::time_point now);

// `cells` followed by the wide columns every workload ends with: Containers and Images of
// `pod_template`, and `selector` (null: "<none>").
json WithWideCells(json cells, const json& pod_template, const json* selector);

// Built-in printers, split by file.
json PodCells(const json& pod, Clock::time_point now);
json NodeCells(const json& node, Clock::time_point now);
json EventCells(const json& event, Clock::time_point now);
json DeploymentCells(const json& deployment, Clock::time_point now);
json ReplicaSetCells(const json& replica_set, Clock::time_point now);
json DaemonSetCells(const json& daemon_set, Clock::time_point now);
json HpaCells(const json& hpa, Clock::time_point now);
json BatchJobCells(const json& job, Clock::time_point now);
json CronJobCells(const json& cron_job, Clock::time_point now);
json ServiceCells(const json& service, Clock::time_point now);
json EndpointsCells(const json& endpoints, Clock::time_point now);
json EndpointSliceCells(const json& slice, Clock::time_point now);
json RoleCells(const json& role);                                   // Role, ClusterRole
json RoleBindingCells(const json& binding, Clock::time_point now);  // and ClusterRoleBinding

// A CRD printer column: the value at the column's JSON path, typed as the column says.
json CrdCell(const PrinterColumn& column, const json& object, Clock::time_point now);

}  // namespace etna::api::resources::internal
