// Resource names, fixed-point quantities and resource vectors.
//
// Every resource name ("cpu", "memory", "nvidia.com/gpu", ...) is interned once into a dense
// ResourceId by the process-wide ResourceNames table; cpu, memory, nvidia.com/gpu and pods have
// fixed ids. Quantities are exact 64-bit integers: countable resources (cpu, GPUs, extended
// resources) are stored in milli-units, byte-like resources (memory, storage, hugepages) and pod
// counts in whole units. A ResourceVector is a small fixed-size array indexed by ResourceId, so
// arithmetic and comparison never allocate and never use floating point.
//
// Thread-safety: ResourceNames::Intern takes a lock; lookups of already interned ids are
// lock-free. ResourceVector and ResourceLimit are plain values.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace etna {

using ResourceId = uint8_t;
inline constexpr int kMaxResources = 32;
inline constexpr ResourceId kCpu = 0;
inline constexpr ResourceId kMemory = 1;
inline constexpr ResourceId kGpu = 2;
inline constexpr ResourceId kPods = 3;
inline constexpr char kGpuResourceName[] = "nvidia.com/gpu";

// How a resource's amount is stored: kMilli stores amount*1000, kUnit stores the amount itself.
enum class ResourceUnit { kMilli, kUnit };

class ResourceNames {
 public:
  static ResourceNames& Global();

  // Returns the id of `name`, interning it on first use. Fails past kMaxResources names.
  Result<ResourceId> Intern(std::string_view name);
  std::optional<ResourceId> Find(std::string_view name) const;
  const std::string& Name(ResourceId id) const { return names_[id]; }
  ResourceUnit Unit(ResourceId id) const { return units_[id]; }
  int size() const { return size_.load(std::memory_order_acquire); }

 private:
  ResourceNames();
  mutable std::mutex mu_;
  std::array<std::string, kMaxResources> names_;
  std::array<ResourceUnit, kMaxResources> units_{};
  std::atomic<int> size_{0};
};

// Parses a Kubernetes quantity ("500m", "4", "16Gi", "1.5", "2e3") into the fixed-point
// representation of `unit`, rounding fractions of the smallest unit up as Kubernetes does.
Result<int64_t> ParseQuantity(std::string_view text, ResourceUnit unit);

// Formats a fixed-point amount of resource `id` as a Kubernetes quantity ("500m", "2", "16Gi").
std::string FormatQuantity(ResourceId id, int64_t amount);

class ResourceVector {
 public:
  ResourceVector() = default;

  int64_t Get(ResourceId id) const { return v_[id]; }
  void Set(ResourceId id, int64_t amount) {
    v_[id] = amount;
    if (id >= dims_) dims_ = id + 1;
  }
  void Add(ResourceId id, int64_t amount) { Set(id, v_[id] + amount); }
  // Number of leading dimensions that may be non-zero.
  int dims() const { return dims_; }

  ResourceVector& operator+=(const ResourceVector& o);
  ResourceVector& operator-=(const ResourceVector& o);
  friend ResourceVector operator+(ResourceVector a, const ResourceVector& b) { return a += b; }
  friend ResourceVector operator-(ResourceVector a, const ResourceVector& b) { return a -= b; }
  bool operator==(const ResourceVector& o) const;

  // True when every dimension of this is <= the same dimension of `o`.
  bool LessEqual(const ResourceVector& o) const;
  // Bit d is set when this[d] > o[d]: the resources `o` lacks to hold this.
  uint32_t ExceedMask(const ResourceVector& o) const;
  bool IsZero() const;
  bool AnyNegative() const;
  // Component-wise max(0, x).
  ResourceVector ClampedAtZero() const;
  // Component-wise min.
  ResourceVector Min(const ResourceVector& o) const;
  ResourceVector Max(const ResourceVector& o) const;
  // "cpu=4, memory=16Gi, nvidia.com/gpu=2" (zero dimensions omitted).
  std::string ToString() const;

 private:
  std::array<int64_t, kMaxResources> v_{};
  uint8_t dims_ = 0;
};

// A bound on some dimensions of a resource vector (a queue's capability or guarantee as the
// user wrote it): dimensions not named are unbounded.
class ResourceLimit {
 public:
  ResourceLimit() = default;
  static ResourceLimit Of(const ResourceVector& v);  // bounds every non-zero dimension

  void Set(ResourceId id, int64_t amount) {
    value_.Set(id, amount);
    mask_ |= 1u << id;
  }
  bool Has(ResourceId id) const { return mask_ & (1u << id); }
  bool empty() const { return mask_ == 0; }
  uint32_t mask() const { return mask_; }
  const ResourceVector& value() const { return value_; }
  // True when every bounded dimension of v is within the limit.
  bool Allows(const ResourceVector& v) const;
  // Dimensions of v over the limit.
  uint32_t ExceedMask(const ResourceVector& v) const;
  // Bounded dimensions take the limit, the others keep v's value.
  ResourceVector ClampToLimit(const ResourceVector& v) const;
  std::string ToString() const;

 private:
  ResourceVector value_;
  uint32_t mask_ = 0;
};

// Names the resources in a mask: "nvidia.com/gpu, memory".
std::string ResourceMaskNames(uint32_t mask);

}  // namespace etna
