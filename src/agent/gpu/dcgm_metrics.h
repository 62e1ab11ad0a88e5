// The agent's /metrics: GPU readings in the Prometheus text format (0.0.4) under dcgm-exporter's
// names, types, HELP texts and labels, so that dashboards and alert rules written for
// dcgm-exporter work unchanged. The families and units are the contract of docs/monitoring.md
// ("Agent").
//
// Labels, in dcgm-exporter's order: gpu, UUID, pci_bus_id, device ("nvidia<index>"), modelName,
// [GPU_I_PROFILE, GPU_I_ID for a MIG instance], Hostname, then container, namespace, pod of a
// pod holding the device (none when idle).
// A device several pods hold (shares, or MIG instances of it) gets one series per pod, as
// dcgm-exporter writes with --kubernetes-virtual-gpus (without its `vgpu` label; its default
// mode keeps one of the pods only): summing a family over pods counts such a device more than
// once, so aggregate per device (max by UUID) where that matters.
// MIG: the framebuffer families, the only readings NVML gives per instance, also get one series
// per instance with a reading, labelled with the pods holding that instance; every other family
// has the parent device's series only.
// A reading the source does not have is left out, not written as 0 (its HELP and TYPE stay).
// DCGM_FI_DEV_COUNT{Hostname} is the number of healthy devices.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/gpu/gpu_holders.h"
#include "agent/gpu/gpu_source.h"

namespace etna::agent {

std::string DcgmMetrics(const std::string& hostname, const std::vector<GpuDevice>& gpus,
                        const GpuHolders& holders);

}  // namespace etna::agent
