#include "controllers/expectations.h"

#include <algorithm>

#include "api/types/pod.h"

namespace etna::controllers {

void PodExpectations::Expect(const std::string& key, Changes changes, TimeMs now) {
  if (changes.created.empty() && changes.deleted.empty() && changes.unfinalized.empty()) return;
  std::lock_guard lock(mu_);
  entries_[key] = Entry{std::move(changes), now};
}

bool PodExpectations::Met(const std::string& key, const std::string& ns, client::Informer& pods,
                          TimeMs now) {
  Entry e;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return true;
    e = it->second;
  }
  const Changes& c = e.changes;
  bool met = now - e.since > kTimeoutMs;
  if (!met) {
    met = std::all_of(c.created.begin(), c.created.end(),
                      [&](const std::string& n) { return pods.Get(ns, n).has_value(); }) &&
          std::all_of(c.deleted.begin(), c.deleted.end(),
                      [&](const std::string& n) {
                        auto pod = pods.Get(ns, n);
                        if (!pod) return true;
                        api::types::Pod view(*pod);
                        return view.IsDeleting() || view.IsTerminal();
                      }) &&
          std::all_of(c.unfinalized.begin(), c.unfinalized.end(), [&](const std::string& n) {
            auto pod = pods.Get(ns, n);
            return !pod || !api::types::ObjectView(*pod).HasFinalizer(c.finalizer);
          });
  }
  if (met) Forget(key);
  return met;
}

void PodExpectations::Forget(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

}  // namespace etna::controllers
