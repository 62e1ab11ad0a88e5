// EtcdCluster: real etcd members (Debian's etcd-server) for tests and benchmarks, each on
// loopback ports picked free, with its data under one directory; killed with SIGKILL and reaped
// on destruction. Members can be killed and restarted to test failover.
//
// Thread-safety: none; one test thread drives it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace etna::store::testing {

class EtcdCluster {
 public:
  // Starts `members` members under `dir` (created when missing) and waits until each is
  // healthy. `fsync` false passes --unsafe-no-fsync.
  static Result<std::unique_ptr<EtcdCluster>> Start(int members, const std::string& dir,
                                                    bool fsync = true);
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  std::vector<std::string> ClientUrls() const;
  std::string ClientUrl(int member) const;
  // SIGKILL, and wait for the process to go.
  void Kill(int member);
  // Starts a killed member again with its data.
  Status Restart(int member);
  int size() const { return static_cast<int>(members_.size()); }

 private:
  struct Member {
    std::string name, data_dir, log_file;
    int client_port = 0, peer_port = 0;
    pid_t pid = -1;
  };
  EtcdCluster() = default;
  Status Spawn(Member& m, bool existing);
  // Waits until the member answers /health (it has joined a cluster with a leader).
  Status AwaitHealthy(Member& m);

  std::string initial_cluster_;
  bool fsync_ = true;
  std::vector<Member> members_;
};

}  // namespace etna::store::testing
