#include "store/etcd/etcd_testing.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

extern char** environ;

namespace etna::store::testing {
namespace {

// A loopback port nothing listens on now.
Result<int> FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::Internal("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  if (port < 0) return Status::Internal("could not pick a free loopback port");
  return port;
}

std::string Url(int port) { return fmt::format("http://127.0.0.1:{}", port); }

// True when etcd's /health on `port` answers healthy (etcd serves it once it has a leader).
bool Healthy(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  timeval timeout{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request = "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[512];
      ssize_t n;
      while ((n = read(fd, buf, sizeof(buf))) > 0) reply.append(buf, n);
    }
  }
  close(fd);
  return reply.find("\"health\":\"true\"") != std::string::npos;
}

}  // namespace

Result<std::unique_ptr<EtcdCluster>> EtcdCluster::Start(int members, const std::string& dir,
                                                        bool fsync) {
  if (access("/usr/bin/etcd", X_OK) != 0) {
    return Status::FailedPrecondition(
        "/usr/bin/etcd is missing: install Debian's etcd-server (scripts/install-deps.sh)");
  }
  std::unique_ptr<EtcdCluster> cluster(new EtcdCluster());
  cluster->fsync_ = fsync;
  std::vector<std::string> peers;
  for (int i = 0; i < members; ++i) {
    Member m;
    m.name = fmt::format("m{}", i);
    m.data_dir = fmt::format("{}/{}", dir, m.name);
    m.log_file = fmt::format("{}/{}.log", dir, m.name);
    ETNA_ASSIGN_OR_RETURN(m.client_port, FreePort());
    ETNA_ASSIGN_OR_RETURN(m.peer_port, FreePort());
    peers.push_back(fmt::format("{}={}", m.name, Url(m.peer_port)));
    cluster->members_.push_back(m);
  }
  cluster->initial_cluster_ = fmt::format("{}", fmt::join(peers, ","));
  std::filesystem::create_directories(dir);
  for (Member& m : cluster->members_) ETNA_RETURN_IF_ERROR(cluster->Spawn(m, false));
  for (Member& m : cluster->members_) ETNA_RETURN_IF_ERROR(cluster->AwaitHealthy(m));
  return cluster;
}

Status EtcdCluster::Spawn(Member& m, bool existing) {
  std::vector<std::string> args = {"/usr/bin/etcd",
                                   "--name",
                                   m.name,
                                   "--data-dir",
                                   m.data_dir,
                                   "--listen-client-urls",
                                   Url(m.client_port),
                                   "--advertise-client-urls",
                                   Url(m.client_port),
                                   "--listen-peer-urls",
                                   Url(m.peer_port),
                                   "--initial-advertise-peer-urls",
                                   Url(m.peer_port),
                                   "--initial-cluster",
                                   initial_cluster_,
                                   "--initial-cluster-state",
                                   existing ? "existing" : "new",
                                   "--initial-cluster-token",
                                   "etna-test",
                                   "--logger",
                                   "zap",
                                   "--log-outputs",
                                   "stderr",
                                   "--log-level",
                                   "warn"};
  if (!fsync_) args.push_back("--unsafe-no-fsync");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, m.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  int rc = posix_spawn(&m.pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Status::Internal(fmt::format("starting etcd {}: {}", m.name, strerror(rc)));
  return Status::Ok();
}

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) Kill(i);
}

std::vector<std::string> EtcdCluster::ClientUrls() const {
  std::vector<std::string> out;
  for (int i = 0; i < size(); ++i) out.push_back(ClientUrl(i));
  return out;
}

std::string EtcdCluster::ClientUrl(int member) const { return Url(members_[member].client_port); }

void EtcdCluster::Kill(int member) {
  Member& m = members_[member];
  if (m.pid <= 0) return;
  kill(m.pid, SIGKILL);
  waitpid(m.pid, nullptr, 0);
  m.pid = -1;
}

Status EtcdCluster::Restart(int member) {
  Member& m = members_[member];
  if (m.pid > 0) return Status::FailedPrecondition(fmt::format("etcd {} is running", m.name));
  ETNA_RETURN_IF_ERROR(Spawn(m, true));
  return AwaitHealthy(m);
}

Status EtcdCluster::AwaitHealthy(Member& m) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!Healthy(m.client_port)) {
    int wstatus = 0;
    if (waitpid(m.pid, &wstatus, WNOHANG) == m.pid) {
      m.pid = -1;
      return Status::Internal(fmt::format("etcd {} exited; see {}", m.name, m.log_file));
    }
    if (std::chrono::steady_clock::now() >= give_up) {
      return Status::Unavailable(
          fmt::format("etcd {} not healthy after 60 s; see {}", m.name, m.log_file));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::Ok();
}

}  // namespace etna::store::testing
