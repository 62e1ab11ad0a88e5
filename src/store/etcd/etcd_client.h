// EtcdClient: etna's connection to an etcd cluster over its v3 gRPC API.
//
// One gRPC channel per member (HTTP/2, multiplexed, with keep-alive pings), one of them current;
// Range and Txn answers arrive on one completion queue, polled by a thread of their own.
// A call that finds its member unreachable moves to the next member: reads always retry there,
// writes only when the request cannot have reached a member (no connection, no leader) — a write
// whose outcome is unknown returns Unavailable and is never sent twice. The member list is
// refreshed from the cluster in the background, so members added later are used and a lost
// member costs one failed attempt, not an outage.
//
// Thread-safety: every method may be called concurrently from any thread.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "store/etcd/etcd_rpc.grpc.pb.h"

namespace etna::store {

struct EtcdClientOptions {
  // Client URLs: http://host:port or https://host:port (kube-apiserver's --etcd-servers).
  std::vector<std::string> endpoints;
  // PEM files for https members: the CA to trust, and this client's certificate and key.
  std::string ca_file, cert_file, key_file;
  std::chrono::milliseconds request_timeout{15000};
  std::chrono::milliseconds dial_timeout{5000};     // Connect's wait for a first member
  std::chrono::milliseconds member_refresh{30000};  // 0: never refresh the member list
};

// Whether a failed call may be sent again to another member.
enum class RetrySafety { kIdempotent, kOnlyIfUnsent };

class EtcdClient {
 public:
  // Parses the URLs, reads the TLS files and waits (dial_timeout) for one member to answer.
  static Result<std::unique_ptr<EtcdClient>> Connect(EtcdClientOptions options);
  ~EtcdClient();

  // Calls retry on other members until `timeout` (request_timeout when not given).
  Result<etcdserverpb::RangeResponse> Range(
      const etcdserverpb::RangeRequest& request,
      std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // With kOnlyIfUnsent, a member lost after the request went out ends the call with
  // Unavailable and `*outcome_unknown` set: the write may or may not have been applied.
  Result<etcdserverpb::TxnResponse> Txn(const etcdserverpb::TxnRequest& request, RetrySafety safety,
                                        bool* outcome_unknown = nullptr);
  Status Compact(int64_t revision);
  // etcd's revision now (a linearizable read).
  Result<int64_t> CurrentRevision(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // A bidirectional watch stream on the current member (nullptr when no member is known); a
  // member that does not answer ends the stream's first Read.
  struct WatchStream {
    std::shared_ptr<grpc::Channel> channel;        // outlives the stream (destroyed last)
    std::unique_ptr<grpc::ClientContext> context;  // TryCancel() ends the stream from any thread
    std::unique_ptr<
        grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>>
        stream;
    std::string endpoint;
  };
  std::unique_ptr<WatchStream> OpenWatch();
  // Moves on from `endpoint` after a stream on it failed (no-op when it is no longer current).
  void MarkFailed(const std::string& endpoint);

  // Asks the cluster for its members now (the background refresh does this periodically).
  Status RefreshMembers();

 private:
  struct Member {
    std::string url;     // as given or as the cluster lists it
    std::string target;  // host:port
    std::shared_ptr<grpc::Channel> channel;
    std::shared_ptr<etcdserverpb::KV::Stub> kv;
  };

  explicit EtcdClient(EtcdClientOptions options) : options_(std::move(options)) {}
  Status SetMembers(const std::vector<std::string>& urls);
  std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target, bool tls);
  // The current member, then each other once, for one call.
  std::vector<Member> Rotation();
  template <typename Response, typename Call>
  Result<Response> Unary(const char* what, RetrySafety safety, const Call& call,
                         bool* outcome_unknown = nullptr,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  void RefreshLoop();
  // Sends an async unary call (`start` returns its reader) on completions_ and waits for it:
  // one thread polls for every call's answer and wakes only its caller; blocking calls from
  // many threads made gRPC hand polling from thread to thread, and most of their CPU went to
  // those switches.
  template <typename Response, typename Start>
  grpc::Status AwaitUnary(const Start& start, Response* response);
  void CompletionLoop();

  const EtcdClientOptions options_;
  grpc::CompletionQueue completions_;
  std::thread completion_thread_;
  std::shared_ptr<grpc::ChannelCredentials> tls_credentials_;  // null without https members

  std::mutex mu_;
  std::vector<Member> members_;
  size_t current_ = 0;

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread refresher_;
};

// etcd's gRPC status as an etna Status: compacted → Gone, a future revision or an oversized
// request → InvalidArgument, no space → ResourceExhausted, unreachable → Unavailable.
Status EtcdStatus(const grpc::Status& status, const std::string& what);

}  // namespace etna::store
