// Kubernetes quantities in admission: resource lists (requests, limits, queue capability,
// PodGroup minResources) parsed with common/ParseQuantity, and container resource requirements
// (valid names and quantities, not negative, extended resources whole and request == limit,
// request <= limit). Internal to admission/. Stateless functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "api/admission/validation.h"

namespace etna::api::admission::internal {

// Parsed resource list: name -> fixed-point amount (milli-units for countable resources, units
// for byte-like ones), as common/resource.h stores them.
using ResourceAmounts = std::map<std::string, int64_t>;

// True for resources counted in bytes (memory, storage, hugepages-*).
bool IsByteResource(const std::string& name);
// True for extended resources (a domain-prefixed name outside kubernetes.io), which must be
// whole numbers: nvidia.com/gpu, nvidia.com/mig-1g.5gb, volcano.sh/vgpu-number.
bool IsExtendedResource(const std::string& name);

// Parses one quantity (a JSON string or number) for resource `name`; adds Invalid at `path` when
// malformed or negative (and, for extended resources when `whole_extended`, fractional).
std::optional<int64_t> ParseQuantityValue(const Json& value, const std::string& name,
                                          const std::string& path, bool whole_extended,
                                          Errors& errs);

// Validates `list` (a JSON object of name -> quantity) at `path` ("spec.capability"); errors are
// at `path[name]`. Returns the amounts that parsed.
ResourceAmounts ValidateResourceList(const Json& list, const std::string& path, bool whole_extended,
                                     Errors& errs);

// Checks every amount in `small` is <= the same resource in `big` (resources missing in `big`
// are unlimited); errors at `small_path[name]`.
void CheckLessOrEqual(const ResourceAmounts& small, const Json& small_list,
                      const std::string& small_path, const ResourceAmounts& big,
                      const Json& big_list, const std::string& big_path, Errors& errs);

// What one pod of `pod_spec` requests, as the scheduler counts it: each container's requests
// (its limits where a request is absent, as Kubernetes defaults requests from limits), summed,
// and at least each init container's. Quantities that do not parse count as absent.
ResourceAmounts PodSpecRequest(const Json& pod_spec);

// Validates a container's `resources` at `path` ("spec.containers[0].resources").
void ValidateResourceRequirements(const Json& resources, const std::string& path, Errors& errs);

}  // namespace etna::api::admission::internal
