#include "store/etcd/etcd_client.h"

#include <fmt/format.h>

#include <climits>

#include "common/file.h"

namespace etna::store {
namespace {

using etcdserverpb::Cluster;
using etcdserverpb::KV;

struct ParsedUrl {
  std::string target;  // host:port
  bool tls = false;
};

Result<ParsedUrl> ParseEtcdUrl(const std::string& url) {
  ParsedUrl out;
  std::string rest;
  if (url.rfind("http://", 0) == 0) {
    rest = url.substr(7);
  } else if (url.rfind("https://", 0) == 0) {
    rest = url.substr(8);
    out.tls = true;
  } else {
    return Status::InvalidArgument(
        fmt::format("etcd server \"{}\": expected http://host:port or https://host:port", url));
  }
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  size_t bracket = rest.rfind(']');
  if (rest.empty() || colon == std::string::npos ||
      (bracket != std::string::npos && colon < bracket) || colon + 1 == rest.size() ||
      rest.find('/') != std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("etcd server \"{}\": expected http://host:port or https://host:port", url));
  }
  out.target = rest;
  return out;
}

// The call failed because the member could not be reached or could not act (no leader), as
// opposed to an answer from etcd.
bool Unreachable(const grpc::Status& st) {
  return st.error_code() == grpc::StatusCode::UNAVAILABLE ||
         st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

// The request cannot have been applied: no connection was made, or etcd refused it before
// proposing it (no leader).
bool NotSent(const grpc::Status& st) {
  if (st.error_code() != grpc::StatusCode::UNAVAILABLE) return false;
  const std::string& m = st.error_message();
  for (const char* sign : {"failed to connect", "Connection refused", "no leader",
                           "DNS resolution failed", "connections to all backends failing"}) {
    if (m.find(sign) != std::string::npos) return true;
  }
  return false;
}

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

Status EtcdStatus(const grpc::Status& st, const std::string& what) {
  if (st.ok()) return Status::Ok();
  const std::string& m = st.error_message();
  std::string message = fmt::format("etcd {}: {}", what, m);
  if (Contains(m, "required revision has been compacted")) return Status::Gone(message);
  if (Contains(m, "future revision")) return Status::InvalidArgument(message);
  switch (st.error_code()) {
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return Status::ResourceExhausted(message);
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
      return Status::InvalidArgument(message);
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED:
      return Status::Unavailable(message);
    default:
      return Status::Internal(message);
  }
}

Result<std::unique_ptr<EtcdClient>> EtcdClient::Connect(EtcdClientOptions options) {
  if (options.endpoints.empty()) {
    return Status::InvalidArgument("--etcd-servers: at least one etcd server URL is required");
  }
  if (options.cert_file.empty() != options.key_file.empty()) {
    return Status::InvalidArgument("--etcd-certfile and --etcd-keyfile are given together");
  }
  std::unique_ptr<EtcdClient> client(new EtcdClient(std::move(options)));
  const EtcdClientOptions& o = client->options_;
  bool any_tls = false;
  for (const std::string& url : o.endpoints) {
    auto parsed = ParseEtcdUrl(url);
    if (!parsed.ok()) return parsed.status().WithContext("--etcd-servers");
    any_tls |= parsed->tls;
  }
  if (!any_tls) {
    for (auto [flag, file] :
         {std::pair{"--etcd-cafile", &o.ca_file}, std::pair{"--etcd-certfile", &o.cert_file},
          std::pair{"--etcd-keyfile", &o.key_file}}) {
      if (!file->empty()) {
        return Status::InvalidArgument(
            fmt::format("{} {}: no --etcd-servers URL is https://", flag, *file));
      }
    }
  } else {
    grpc::SslCredentialsOptions ssl;
    if (!o.ca_file.empty()) {
      auto ca = ReadFile(o.ca_file);
      if (!ca.ok()) return ca.status().WithContext("--etcd-cafile");
      ssl.pem_root_certs = *ca;
    }
    if (!o.cert_file.empty()) {
      auto cert = ReadFile(o.cert_file);
      if (!cert.ok()) return cert.status().WithContext("--etcd-certfile");
      auto key = ReadFile(o.key_file);
      if (!key.ok()) return key.status().WithContext("--etcd-keyfile");
      ssl.pem_cert_chain = *cert;
      ssl.pem_private_key = *key;
    }
    client->tls_credentials_ = grpc::SslCredentials(ssl);
  }
  client->completion_thread_ = std::thread([c = client.get()] { c->CompletionLoop(); });
  ETNA_RETURN_IF_ERROR(client->SetMembers(o.endpoints));
  // Wait (dial_timeout) for a first member to answer, so a wrong address fails here with its
  // reason.
  auto rev = client->CurrentRevision(o.dial_timeout);
  if (!rev.ok()) {
    return rev.status().WithContext(fmt::format("--etcd-servers {}", fmt::join(o.endpoints, ",")));
  }
  if (o.member_refresh.count() > 0) {
    client->refresher_ = std::thread([c = client.get()] { c->RefreshLoop(); });
  }
  return client;
}

EtcdClient::~EtcdClient() {
  {
    std::lock_guard lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (refresher_.joinable()) refresher_.join();
  completions_.Shutdown();
  if (completion_thread_.joinable()) completion_thread_.join();
}

namespace {

// One async call's end, as the completion thread reports it to the waiting caller.
struct CallEnd {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
};

}  // namespace

void EtcdClient::CompletionLoop() {
  void* tag = nullptr;
  bool ok = false;
  while (completions_.Next(&tag, &ok)) {  // Finish always completes (ok is always true)
    auto* end = static_cast<CallEnd*>(tag);
    std::lock_guard lock(end->mu);
    end->done = true;
    end->cv.notify_one();
  }
}

template <typename Response, typename Start>
grpc::Status EtcdClient::AwaitUnary(const Start& start, Response* response) {
  grpc::Status status;
  CallEnd end;
  start(&completions_)->Finish(response, &status, &end);
  std::unique_lock lock(end.mu);
  end.cv.wait(lock, [&] { return end.done; });
  return status;
}

std::shared_ptr<grpc::Channel> EtcdClient::MakeChannel(const std::string& target, bool tls) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, INT_MAX);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  // A connect attempt gives up after 5 s (gRPC's default is 20 s), and a refused member's name
  // is resolved again within a second rather than gRPC's default 30 s.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 5000);
  args.SetInt(GRPC_ARG_DNS_MIN_TIME_BETWEEN_RESOLUTIONS_MS, 1000);
  auto creds = tls && tls_credentials_ ? tls_credentials_ : grpc::InsecureChannelCredentials();
  return grpc::CreateCustomChannel(target, creds, args);
}

Status EtcdClient::SetMembers(const std::vector<std::string>& urls) {
  std::vector<Member> next;
  {
    std::lock_guard lock(mu_);
    for (const std::string& url : urls) {
      ETNA_ASSIGN_OR_RETURN(ParsedUrl parsed, ParseEtcdUrl(url));
      Member m{url, parsed.target, nullptr, nullptr};
      for (const Member& old : members_) {
        if (old.target == m.target) m = old;  // keep its connection
      }
      m.url = url;
      next.push_back(std::move(m));
    }
    std::string current = members_.empty() ? "" : members_[current_].target;
    members_.clear();
    current_ = 0;
    for (Member& m : next) {
      if (!m.channel) {
        bool tls = m.url.rfind("https://", 0) == 0;
        m.channel = MakeChannel(m.target, tls);
        m.kv = KV::NewStub(m.channel);
      }
      if (m.target == current) current_ = members_.size();
      members_.push_back(std::move(m));
    }
  }
  return Status::Ok();
}

std::vector<EtcdClient::Member> EtcdClient::Rotation() {
  std::lock_guard lock(mu_);
  std::vector<Member> out;
  for (size_t i = 0; i < members_.size(); ++i) {
    out.push_back(members_[(current_ + i) % members_.size()]);
  }
  return out;
}

void EtcdClient::MarkFailed(const std::string& endpoint) {
  std::lock_guard lock(mu_);
  if (!members_.empty() && members_[current_].url == endpoint) {
    current_ = (current_ + 1) % members_.size();
  }
}

template <typename Response, typename Call>
Result<Response> EtcdClient::Unary(const char* what, RetrySafety safety, const Call& call,
                                   bool* outcome_unknown,
                                   std::optional<std::chrono::milliseconds> timeout) {
  const auto deadline =
      std::chrono::system_clock::now() + timeout.value_or(options_.request_timeout);
  grpc::Status last;
  std::chrono::milliseconds pause{50};
  while (true) {
    for (const Member& m : Rotation()) {
      grpc::ClientContext context;
      context.set_deadline(deadline);
      Response response;
      grpc::Status st = call(m, &context, &response);
      if (st.ok()) return response;
      last = st;
      if (!Unreachable(st)) return EtcdStatus(st, what);  // etcd answered: no member differs
      MarkFailed(m.url);
      if (safety == RetrySafety::kOnlyIfUnsent && !NotSent(st)) {
        if (outcome_unknown) *outcome_unknown = true;
        return Status::Unavailable(fmt::format(
            "etcd {}: the outcome is unknown, member {} went away during the request: {}", what,
            m.url, st.error_message()));
      }
      if (std::chrono::system_clock::now() >= deadline) return EtcdStatus(st, what);
    }
    // Every member failed (an election, a restart): wait a little and go round again.
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::system_clock::now());
    if (left.count() <= 0) return EtcdStatus(last, what);
    std::this_thread::sleep_for(std::min(pause, left));
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

Result<etcdserverpb::RangeResponse> EtcdClient::Range(
    const etcdserverpb::RangeRequest& request, std::optional<std::chrono::milliseconds> timeout) {
  return Unary<etcdserverpb::RangeResponse>(
      "range", RetrySafety::kIdempotent,
      [&](const Member& m, grpc::ClientContext* ctx, auto* r) {
        return AwaitUnary(
            [&](grpc::CompletionQueue* cq) { return m.kv->AsyncRange(ctx, request, cq); }, r);
      },
      nullptr, timeout);
}

Result<etcdserverpb::TxnResponse> EtcdClient::Txn(const etcdserverpb::TxnRequest& request,
                                                  RetrySafety safety, bool* outcome_unknown) {
  return Unary<etcdserverpb::TxnResponse>(
      "txn", safety,
      [&](const Member& m, grpc::ClientContext* ctx, auto* r) {
        return AwaitUnary(
            [&](grpc::CompletionQueue* cq) { return m.kv->AsyncTxn(ctx, request, cq); }, r);
      },
      outcome_unknown);
}

Status EtcdClient::Compact(int64_t revision) {
  etcdserverpb::CompactionRequest request;
  request.set_revision(revision);
  auto r = Unary<etcdserverpb::CompactionResponse>(
      "compact", RetrySafety::kIdempotent,
      [&](const Member& m, grpc::ClientContext* ctx, auto* resp) {
        return m.kv->Compact(ctx, request, resp);
      });
  return r.status();
}

Result<int64_t> EtcdClient::CurrentRevision(std::optional<std::chrono::milliseconds> timeout) {
  etcdserverpb::RangeRequest request;
  request.set_key(std::string(1, '\0'));
  request.set_count_only(true);
  ETNA_ASSIGN_OR_RETURN(etcdserverpb::RangeResponse response, Range(request, timeout));
  return response.header().revision();
}

std::unique_ptr<EtcdClient::WatchStream> EtcdClient::OpenWatch() {
  std::vector<Member> rotation = Rotation();
  if (rotation.empty()) return nullptr;
  const Member& m = rotation.front();
  auto out = std::make_unique<WatchStream>();
  out->endpoint = m.url;
  out->channel = m.channel;
  out->context = std::make_unique<grpc::ClientContext>();
  // A member cut off from its cluster's leader ends the stream instead of going quiet.
  out->context->AddMetadata("hasleader", "true");
  out->stream = etcdserverpb::Watch::NewStub(m.channel)->Watch(out->context.get());
  return out;
}

Status EtcdClient::RefreshMembers() {
  auto r = Unary<etcdserverpb::MemberListResponse>(
      "member list", RetrySafety::kIdempotent,
      [&](const Member& m, grpc::ClientContext* ctx, auto* resp) {
        return Cluster::NewStub(m.channel)->MemberList(ctx, etcdserverpb::MemberListRequest(),
                                                       resp);
      });
  if (!r.ok()) return r.status();
  std::vector<std::string> urls;
  for (const auto& member : r->members()) {
    if (member.islearner()) continue;
    for (const std::string& url : member.clienturls()) {
      if (ParseEtcdUrl(url).ok()) urls.push_back(url);
    }
  }
  if (urls.empty()) return Status::Ok();  // keep what we have rather than nothing
  return SetMembers(urls);
}

void EtcdClient::RefreshLoop() {
  std::unique_lock lock(stop_mu_);
  while (!stop_cv_.wait_for(lock, options_.member_refresh, [&] { return stop_; })) {
    lock.unlock();
    (void)RefreshMembers();
    lock.lock();
  }
}

}  // namespace etna::store
