#include "agent/pod_tokens.h"

#include <fmt/format.h>

#include <set>

#include "common/clock_steps.h"

namespace etna::agent {

using nlohmann::json;

Result<std::string> PodTokens::For(const json& pod) {
  const json& meta = pod["metadata"];
  const std::string uid = meta.value("uid", "");
  const TimeMs now = clock_->NowMs();
  Held& held = held_[uid];
  // Ages, not wall-clock deadlines (AgedOut): a clock stepped back an hour must not keep a
  // token past its expiry.
  if (!held.token.empty() && !AgedOut(now, held.asked_ms, held.ask_every_ms)) return held.token;
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
    held.asked_ms = now;
    held.ask_every_ms = 10'000;
    if (!held.token.empty() && !AgedOut(now, held.issued_ms, kLifetimeSeconds * 1000)) {
      return held.token;
    }
    return made.status().WithContext(fmt::format("a token for ServiceAccount {}/{}", ns, account));
  }
  held.token = made->value("/status/token"_json_pointer, std::string());
  held.issued_ms = held.asked_ms = now;
  held.ask_every_ms = kLifetimeSeconds * 800;
  return held.token;
}

void PodTokens::Retain(const std::vector<json>& pods) {
  std::set<std::string> uids;
  for (const json& p : pods) uids.insert(p.value("/metadata/uid"_json_pointer, std::string()));
  std::erase_if(held_, [&](const auto& kv) { return !uids.count(kv.first); });
}

}  // namespace etna::agent
