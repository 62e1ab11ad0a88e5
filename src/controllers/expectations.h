// PodExpectations: client-go's ControllerExpectations for a controller that creates and deletes
// pods (ReplicaSet, batch Job). After a pass creates or deletes pods (or, for a Job, removes
// its tracking finalizer from pods it counted), the controller records their names under its
// key; until its pod informer shows every one of them created (deleted or terminal; without
// the finalizer or gone), or they are too old to wait for, it does not act on them again, so a
// slow watch never doubles a scale-up, a Job's parallelism or a Job's count of finished pods.
// Thread-safety: all methods may be called from any thread (guarded by a mutex).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "client/informer.h"
#include "common/clock.h"

namespace etna::controllers {

class PodExpectations {
 public:
  // Expectations older than this are given up on (Kubernetes' ExpectationsTimeout).
  static constexpr TimeMs kTimeoutMs = 5 * 60 * 1000;

  // What one pass did: pod names in its namespace.
  struct Changes {
    std::vector<std::string> created, deleted;
    std::vector<std::string> unfinalized;  // `finalizer` removed
    std::string finalizer;
  };
  // Records what the pass of `key` at `now` did.
  void Expect(const std::string& key, Changes changes, TimeMs now);
  void Expect(const std::string& key, std::vector<std::string> created,
              std::vector<std::string> deleted, TimeMs now) {
    Expect(key, Changes{std::move(created), std::move(deleted), {}, {}}, now);
  }
  // Whether `pods` (the informer of pods) shows everything the last pass of `key` in namespace
  // `ns` did; forgets the expectations once met.
  bool Met(const std::string& key, const std::string& ns, client::Informer& pods, TimeMs now);
  void Forget(const std::string& key);

 private:
  struct Entry {
    Changes changes;
    TimeMs since = 0;
  };
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace etna::controllers
