#include "agent/pod_tokens.h"

#include <fmt/format.h>

#include <set>

namespace etna::agent {

using nlohmann::json;

Result<std::string> PodTokens::For(const json& pod) {
  const json& meta = pod["metadata"];
  const std::string uid = meta.value("uid", "");
  const TimeMs now = clock_->NowMs();
  Held& held = held_[uid];
  if (!held.token.empty() && now < held.renew_ms) return held.token;
  const std::string ns = meta.value("namespace", "");
  const std::string account =
      pod.value("/spec/serviceAccountName"_json_pointer, std::string("default"));
  json request = {{"apiVersion", "authentication.k8s.io/v1"},
                  {"kind", "TokenRequest"},
                  {"spec",
                   {{"expirationSeconds", kLifetimeSeconds},
                    {"boundObjectRef",
                     {{"kind", "Pod"},
                      {"apiVersion", "v1"},
                      {"name", meta.value("name", "")},
                      {"uid", uid}}}}}};
  auto made = rest_->Create(client::Path("serviceaccounts", ns, account) + "/token", request);
  if (!made.ok()) {
    held.renew_ms = now + 10'000;
    if (!held.token.empty() && now < held.expires_ms) return held.token;
    return made.status().WithContext(fmt::format("a token for ServiceAccount {}/{}", ns, account));
  }
  held.token = made->value("/status/token"_json_pointer, std::string());
  held.expires_ms = now + kLifetimeSeconds * 1000;
  held.renew_ms = now + kLifetimeSeconds * 800;
  return held.token;
}

void PodTokens::Retain(const std::vector<json>& pods) {
  std::set<std::string> uids;
  for (const json& p : pods) uids.insert(p.value("/metadata/uid"_json_pointer, std::string()));
  std::erase_if(held_, [&](const auto& kv) { return !uids.count(kv.first); });
}

}  // namespace etna::agent
