// The NVLink domain choice for whole GPUs: of the domains on a node with room for a task's
// GPUs, the one with the fewest free GPUs, so large domains stay whole for larger tasks. The
// session's default device chooser and the gpu-topology plugin's score both ask it.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "sched/model/snapshot.h"

namespace etna::sched::devices {

struct NvlinkDomainFit {
  int32_t domain = -1;  // GpuDevice::nvlink_domain
  size_t free = 0;      // whole free GPUs of `n` in that domain
};

// The domain of `n` with the fewest whole free GPUs that still has `count` of them; among equals
// the one whose first free GPU comes first. GPUs without a domain (negative) belong to none.
// Nullopt when no domain has `count` free GPUs.
std::optional<NvlinkDomainFit> TightestNvlinkDomain(const Node& n, size_t count);

}  // namespace etna::sched::devices
