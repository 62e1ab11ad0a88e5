// Ephemeral storage, judged as the kubelet's eviction manager judges it: what a pod writes on
// the node's disk — each container's writable layer (the run's overlay upper directory; a host
// process's pod root) and logs, and its emptyDir volumes that are not in memory — against each
// container's limits.ephemeral-storage, their sum for the pod, and each emptyDir's sizeLimit.
// Usage is counted under <pod dir> without crossing into other filesystems (the overlay mount
// of a run's root, tmpfs volumes), so an image's layers and memory are not counted.
// Thread-safety: pure functions (they read the disk).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace etna::agent::runtime {

// Bytes allocated under `path`, on its own filesystem only.
int64_t DiskUsage(const std::string& path);

// Why `pod` (whose directory is `pod_dir`, containers in <pod_dir>/<name>) must be evicted, in
// the kubelet's words; "" while it is within its limits. Walks only what a limit applies to:
// nothing for a pod that sets none.
std::string EphemeralStorageViolation(const nlohmann::json& pod, const std::string& pod_dir);

}  // namespace etna::agent::runtime
