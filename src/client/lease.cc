#include "client/lease.h"

#include "common/time.h"

namespace etna::client {

Status RenewLease(RestClient& rest, const std::string& ns, const std::string& name,
                  const std::string& holder, int lease_seconds, TimeMs now,
                  const nlohmann::json& annotations) {
  const std::string path = Path("leases", ns, name);
  nlohmann::json spec = {{"holderIdentity", holder},
                         {"leaseDurationSeconds", lease_seconds},
                         {"renewTime", FormatRfc3339Micro(now)}};
  nlohmann::json patch = {{"spec", spec}};
  if (!annotations.empty()) patch["metadata"] = {{"annotations", annotations}};
  auto p = rest.MergePatch(path, patch);
  if (p.ok()) return Status::Ok();
  if (p.status().code() != StatusCode::kNotFound) return p.status().WithContext("renew lease");
  nlohmann::json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                          {"kind", "Lease"},
                          {"metadata", {{"name", name}, {"namespace", ns}}},
                          {"spec", spec}};
  if (!annotations.empty()) lease["metadata"]["annotations"] = annotations;
  lease["spec"]["acquireTime"] = spec["renewTime"];
  auto c = rest.Create(Path("leases", ns), lease);
  if (!c.ok() && c.status().code() != StatusCode::kAlreadyExists) {
    return c.status().WithContext("create lease");
  }
  return Status::Ok();
}

bool LeaseFresh(const nlohmann::json& lease, TimeMs now) {
  const nlohmann::json& spec = lease.value("spec", nlohmann::json::object());
  auto renewed = ParseRfc3339(spec.value("renewTime", std::string()));
  if (!renewed) return false;
  return *renewed + spec.value("leaseDurationSeconds", int64_t{0}) * 1000 >= now;
}

}  // namespace etna::client
