// Device choice for MIG instances and GPU shares on one node: which concrete devices a task
// gets, with Volcano's binpack (fullest device first) or spread (emptiest first) policy, and a
// score for the choice. Whole GPUs are chosen by the session's default chooser.
//
// Rules: a MIG instance is given to one task at a time and only on a healthy GPU; a share goes
// only on a healthy, unpartitioned GPU that is not held whole, keeps the device's SM total at
// most 100% (1000 milli), its memory at most the device's memory, and at most `split` shares.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sched/devices/request.h"
#include "sched/model/snapshot.h"

namespace etna::sched::devices {

enum class DevicePolicy : uint8_t { kBinpack, kSpread };

// What one node offers for a choice beyond its devices' accounting.
struct ShareState {
  std::vector<int32_t> shares;  // share allocations per device index
  int split = kDefaultSplitCount;
  std::vector<std::string> models;  // allowed device models; empty: any
};

// A share allocation: not a whole device and not a MIG instance.
bool IsShare(const DeviceAllocation& d);

// Picks free MIG instances for every profile in `mig`. Nullopt with `reason` set when the node
// lacks them.
std::optional<std::vector<DeviceAllocation>> ChooseMig(const Node& n,
                                                       const std::vector<MigRequest>& mig,
                                                       const std::vector<std::string>& models,
                                                       DevicePolicy policy, std::string* reason);

// Picks `vgpu_number` distinct devices for a vGPU share, or one device for a legacy memory
// share. Nullopt with `reason` set when the node lacks them.
std::optional<std::vector<DeviceAllocation>> ChooseShares(const Node& n, const DeviceRequest& r,
                                                          const ShareState& state,
                                                          DevicePolicy policy, std::string* reason);

// How full a device is, 0..1: the larger of its SM and memory use, or its MIG memory slices
// in use.
double DeviceFullness(const GpuDevice& g);
// Score 0..100 for placing `chosen` on `n`: the mean fullness of the chosen devices afterwards
// (binpack), or one minus it (spread).
double ScoreChoice(const Node& n, const std::vector<DeviceAllocation>& chosen, DevicePolicy policy);

}  // namespace etna::sched::devices
