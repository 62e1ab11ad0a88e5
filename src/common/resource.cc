#include "common/resource.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace etna {
namespace {

bool IsByteLike(std::string_view name) {
  return name == "memory" || name == "ephemeral-storage" || name == "pods" ||
         name.starts_with("hugepages-");
}

// Powers for a quantity suffix: amount = mantissa * 10^dec * 2^bin.
bool SuffixPowers(std::string_view s, int* dec, int* bin) {
  *dec = 0;
  *bin = 0;
  if (s.empty()) return true;
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (auto [name, p] : kBinary) {
    if (s == name) return *bin = p, true;
  }
  static constexpr std::pair<std::string_view, int> kDecimal[] = {{"n", -9}, {"u", -6}, {"m", -3},
                                                                  {"k", 3},  {"M", 6},  {"G", 9},
                                                                  {"T", 12}, {"P", 15}, {"E", 18}};
  for (auto [name, p] : kDecimal) {
    if (s == name) return *dec = p, true;
  }
  if (s[0] == 'e' || s[0] == 'E') {
    int sign = 1;
    size_t i = 1;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
    if (i == s.size() || s.size() - i > 3) return false;
    int e = 0;
    for (; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
      e = e * 10 + (s[i] - '0');
    }
    *dec = sign * e;
    return true;
  }
  return false;
}

}  // namespace

ResourceNames::ResourceNames() {
  for (const char* n : {"cpu", "memory", kGpuResourceName, "pods"}) (void)Intern(n);
}

ResourceNames& ResourceNames::Global() {
  static ResourceNames* names = new ResourceNames();
  return *names;
}

Result<ResourceId> ResourceNames::Intern(std::string_view name) {
  if (auto id = Find(name)) return *id;
  std::lock_guard<std::mutex> lock(mu_);
  int n = size_.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i) {
    if (names_[i] == name) return static_cast<ResourceId>(i);
  }
  if (n >= kMaxResources) {
    return Status::ResourceExhausted(fmt::format(
        "too many distinct resource names: at most {} are supported, \"{}\" is one more",
        kMaxResources, name));
  }
  names_[n] = std::string(name);
  units_[n] = IsByteLike(name) ? ResourceUnit::kUnit : ResourceUnit::kMilli;
  size_.store(n + 1, std::memory_order_release);
  return static_cast<ResourceId>(n);
}

std::optional<ResourceId> ResourceNames::Find(std::string_view name) const {
  int n = size();
  for (int i = 0; i < n; ++i) {
    if (names_[i] == name) return static_cast<ResourceId>(i);
  }
  return std::nullopt;
}

Result<int64_t> ParseQuantity(std::string_view text, ResourceUnit unit) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument(fmt::format("invalid quantity \"{}\": {}", text, why));
  };
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return bad("empty");
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  __int128 mantissa = 0;
  int frac_digits = 0;
  int digits = 0;
  bool dot = false;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (dot) return bad("two decimal points");
      dot = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (++digits > 30) return bad("too many digits");
    mantissa = mantissa * 10 + (c - '0');
    if (dot) ++frac_digits;
  }
  if (digits == 0) return bad("no digits");
  int dec = 0, bin = 0;
  if (!SuffixPowers(s.substr(i), &dec, &bin)) return bad("unknown suffix");
  dec -= frac_digits;
  if (unit == ResourceUnit::kMilli) dec += 3;
  // value = mantissa * 10^dec * 2^bin, rounded up to an integer.
  constexpr __int128 kMax = static_cast<__int128>(INT64_MAX);
  __int128 num = mantissa;
  __int128 den = 1;
  for (int k = 0; k < bin; ++k) {
    num *= 2;
    if (num > kMax) return bad("too large");
  }
  for (int k = 0; k < dec; ++k) {
    num *= 10;
    if (num > kMax) return bad("too large");
  }
  for (int k = 0; k > dec; --k) {
    den *= 10;
    if (den > kMax) break;  // any non-zero value rounds up to 1 below this
  }
  __int128 value = den > kMax ? (num > 0 ? 1 : 0) : (num + den - 1) / den;
  if (value > kMax) return bad("too large");
  return static_cast<int64_t>(negative ? -value : value);
}

std::string FormatQuantity(ResourceId id, int64_t amount) {
  ResourceUnit unit = ResourceNames::Global().Unit(id);
  if (unit == ResourceUnit::kMilli) {
    if (amount % 1000 == 0) return fmt::format("{}", amount / 1000);
    return fmt::format("{}m", amount);
  }
  if (amount != 0 && id != kPods) {
    static constexpr std::pair<const char*, int> kBinary[] = {
        {"Ti", 40}, {"Gi", 30}, {"Mi", 20}, {"Ki", 10}};
    for (auto [suffix, p] : kBinary) {
      int64_t scale = int64_t{1} << p;
      if (amount % scale == 0) return fmt::format("{}{}", amount / scale, suffix);
    }
  }
  return fmt::format("{}", amount);
}

ResourceVector& ResourceVector::operator+=(const ResourceVector& o) {
  for (int i = 0; i < o.dims_; ++i) v_[i] += o.v_[i];
  dims_ = std::max(dims_, o.dims_);
  return *this;
}

ResourceVector& ResourceVector::operator-=(const ResourceVector& o) {
  for (int i = 0; i < o.dims_; ++i) v_[i] -= o.v_[i];
  dims_ = std::max(dims_, o.dims_);
  return *this;
}

bool ResourceVector::operator==(const ResourceVector& o) const {
  int n = std::max(dims_, o.dims_);
  for (int i = 0; i < n; ++i) {
    if (v_[i] != o.v_[i]) return false;
  }
  return true;
}

bool ResourceVector::LessEqual(const ResourceVector& o) const {
  int n = std::max(dims_, o.dims_);
  for (int i = 0; i < n; ++i) {
    if (v_[i] > o.v_[i]) return false;
  }
  return true;
}

uint32_t ResourceVector::ExceedMask(const ResourceVector& o) const {
  uint32_t mask = 0;
  int n = std::max(dims_, o.dims_);
  for (int i = 0; i < n; ++i) {
    if (v_[i] > o.v_[i]) mask |= 1u << i;
  }
  return mask;
}

bool ResourceVector::IsZero() const {
  for (int i = 0; i < dims_; ++i) {
    if (v_[i] != 0) return false;
  }
  return true;
}

bool ResourceVector::AnyNegative() const {
  for (int i = 0; i < dims_; ++i) {
    if (v_[i] < 0) return true;
  }
  return false;
}

ResourceVector ResourceVector::ClampedAtZero() const {
  ResourceVector r = *this;
  for (int i = 0; i < dims_; ++i) r.v_[i] = std::max<int64_t>(0, v_[i]);
  return r;
}

ResourceVector ResourceVector::Min(const ResourceVector& o) const {
  ResourceVector r;
  int n = std::max(dims_, o.dims_);
  for (int i = 0; i < n; ++i) r.Set(i, std::min(v_[i], o.v_[i]));
  return r;
}

ResourceVector ResourceVector::Max(const ResourceVector& o) const {
  ResourceVector r;
  int n = std::max(dims_, o.dims_);
  for (int i = 0; i < n; ++i) r.Set(i, std::max(v_[i], o.v_[i]));
  return r;
}

std::string ResourceVector::ToString() const {
  std::string out;
  for (int i = 0; i < dims_; ++i) {
    if (v_[i] == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{}={}", ResourceNames::Global().Name(i), FormatQuantity(i, v_[i]));
  }
  return out.empty() ? "none" : out;
}

ResourceLimit ResourceLimit::Of(const ResourceVector& v) {
  ResourceLimit l;
  for (int i = 0; i < v.dims(); ++i) {
    if (v.Get(i) != 0) l.Set(i, v.Get(i));
  }
  return l;
}

bool ResourceLimit::Allows(const ResourceVector& v) const { return ExceedMask(v) == 0; }

uint32_t ResourceLimit::ExceedMask(const ResourceVector& v) const {
  uint32_t mask = 0;
  for (int i = 0; i < kMaxResources; ++i) {
    if (Has(i) && v.Get(i) > value_.Get(i)) mask |= 1u << i;
  }
  return mask;
}

ResourceVector ResourceLimit::ClampToLimit(const ResourceVector& v) const {
  ResourceVector r = v;
  for (int i = 0; i < kMaxResources; ++i) {
    if (Has(i)) r.Set(i, value_.Get(i));
  }
  return r;
}

std::string ResourceLimit::ToString() const {
  std::string out;
  for (int i = 0; i < kMaxResources; ++i) {
    if (!Has(i)) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{}={}", ResourceNames::Global().Name(i), FormatQuantity(i, value_.Get(i)));
  }
  return out.empty() ? "unbounded" : out;
}

std::string ResourceMaskNames(uint32_t mask) {
  std::string out;
  for (int i = 0; i < kMaxResources; ++i) {
    if (!(mask & (1u << i))) continue;
    if (!out.empty()) out += ", ";
    out += ResourceNames::Global().Name(i);
  }
  return out;
}

}  // namespace etna
