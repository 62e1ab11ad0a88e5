// API server benchmark: runs `etna server` (a separate process, TLS, SQLite in a temp dir, or
// with --store etcd a three-member etcd cluster started there) and loads it from C++ clients on
// loopback. Prints exactly two lines:
//   BENCH api store=<sqlite|etcd> creates_per_s=<n> gets_per_s=<n> list_100k_pods_ms=<x>
//             watchers=<n> watch_fanout_events_per_s=<n> p99_create_ms=<x> rss_mb=<n>
//             [etcdctl_check_perf_writes_per_s=<n>]
//   BENCH api-node-watch watchers=<n> pods=<n> elapsed_s=<x> server_cpu_s=<x>
// creates: 64 clients, each create durable (fsynced, group commit). gets: 64 clients. list: one
// unpaged list of 100,000 pods (pre-loaded into the store before the server starts). watch:
// 1,000 open watch streams, each receiving every one of 100 new pods. rss: the server's peak.
// node-watch: 1,000 streams with fieldSelector spec.nodeName=node-<i> (what every agent
// watches), 1,000 pods one per node; the server's CPU seconds for delivering them.
//
// With etcd, etcd's own `etcdctl check perf --load=xl` runs on the same cluster after the load,
// and its throughput is printed on the same line: what etcd alone does on this machine.
//
// Usage: api_bench [--etna PATH] [--clients 64] [--creates 12800] [--list-pods 100000]
//                  [--watchers 1000] [--events 100] [--keep DIR] [--store sqlite|etcd]
// --keep leaves the data dir (with the 100k pods) at DIR for a closer look with `etna server`.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/server/stored_object.h"
#include "bench/daemons.h"
#include "net/http/client.h"
#include "store/etcd/etcd_store.h"
#include "store/etcd/etcd_testing.h"
#include "store/keys.h"
#include "store/sqlite_store.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Flags {
  std::string etna;
  int clients = 64;
  int creates = 12800;
  int list_pods = 100000;
  int watchers = 1000;
  int events = 100;
  std::string keep;
  std::string store = "sqlite";
};

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

json PodObject(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels", {{"app", "bench"}, {"volcano.sh/job-name", "bench-job"}}}}},
          {"spec",
           {{"schedulerName", "volcano"},
            {"containers",
             {{{"name", "main"},
               {"image", "pytorch:2.0"},
               {"command", {"python", "train.py"}},
               {"resources",
                {{"requests", {{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "1"}}},
                 {"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

// Writes `count` pods into the store directly, as the server would store them: into DIR's
// SQLite file, or into etcd when `etcd` is given (in transactions of at most 100 ops: etcd
// allows 128).
void Preload(const std::string& data_dir, int count,
             const etna::store::testing::EtcdCluster* etcd) {
  std::unique_ptr<etna::store::Store> store;
  etna::Status opened;
  size_t batch = 2000;
  if (etcd) {
    etna::store::EtcdStoreOptions options;
    options.client.endpoints = etcd->ClientUrls();
    options.compaction_interval = std::chrono::seconds(0);
    auto s = etna::store::EtcdStore::Open(options);
    if (s.ok()) store = std::move(*s);
    opened = s.status();
    batch = 100;
  } else {
    etna::store::SqliteStoreOptions options;
    options.data_dir = data_dir;
    auto s = etna::store::SqliteStore::Open(options);
    if (s.ok()) store = std::move(*s);
    opened = s.status();
  }
  if (!store) {
    std::fprintf(stderr, "api_bench: %s\n", opened.ToString().c_str());
    std::exit(1);
  }
  std::vector<etna::store::TxnOp> ops;
  for (int i = 0; i < count; ++i) {
    std::string name = fmt::format("list-{:06}", i);
    json pod = PodObject("default", name);
    pod["metadata"]["uid"] = etna::api::server::NewUid();
    pod["metadata"]["creationTimestamp"] = "2026-11-29T00:00:00Z";
    ops.push_back(etna::store::TxnOp::Create(etna::store::ObjectKey("pods", "default", name),
                                             etna::api::server::EncodeStored(pod)));
    if (ops.size() == batch || i + 1 == count) {
      auto r = store->Txn(ops);
      if (!r.ok()) {
        std::fprintf(stderr, "api_bench: preload: %s\n", r.status().ToString().c_str());
        std::exit(1);
      }
      ops.clear();
    }
  }
}

// `etna server` on a free port, its output in DIR/server.log.
struct Server {
  etna::bench::Daemon daemon;
  uint16_t port = 0;
};

Server StartServer(const std::string& etna, const std::string& data_dir,
                   const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {etna,     "server",   "--data-dir",
                                   data_dir, "--listen", "127.0.0.1:0"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  auto d = etna::bench::Daemon::Spawn("etna server", args, data_dir + "/server.log");
  if (!d.ok()) {
    std::fprintf(stderr, "api_bench: %s\n", d.status().ToString().c_str());
    std::exit(1);
  }
  auto rest = d->WaitForLog("serving https://127.0.0.1:", std::chrono::seconds(60));
  if (!rest.ok()) {
    std::fprintf(stderr, "api_bench: %s\n", rest.status().ToString().c_str());
    std::exit(1);
  }
  uint16_t port = static_cast<uint16_t>(std::atoi(rest->c_str()));
  return Server{std::move(*d), port};
}

std::string ReadToken(const std::string& data_dir) {
  std::ifstream in(data_dir + "/tokens.csv");
  std::string line;
  std::getline(in, line);
  return line.substr(0, line.find(','));
}

etna::net::http::ClientOptions ClientFor(const Server& s, const std::string& data_dir,
                                         const std::string& token) {
  etna::net::http::ClientOptions o;
  o.port = s.port;
  o.ca_file = data_dir + "/pki/ca.crt";
  o.bearer_token = token;
  o.timeout = std::chrono::seconds(120);
  return o;
}

void MustOk(const etna::Result<etna::net::http::ClientResponse>& r, int want, const char* what) {
  if (!r.ok() || r->status != want) {
    std::fprintf(stderr, "api_bench: %s: %s\n", what,
                 r.ok() ? fmt::format("HTTP {} {}", r->status, r->body.substr(0, 300)).c_str()
                        : r.status().ToString().c_str());
    std::exit(1);
  }
}

// Opens `watchers` watch streams of namespace `ns`'s pods from its current resourceVersion (the
// w-th with `selector(w)` as fieldSelector, when given), creates `pods` pods there from 4
// writers (`pod(i)` each), and waits until every watcher has seen `each` events. Returns the
// seconds from the first create to the last event, and counts the complete watchers.
double WatchFanOut(const etna::net::http::ClientOptions& options, const std::string& ns,
                   int watchers, int pods, int each,
                   const std::function<std::string(int)>& selector,
                   const std::function<json(int)>& pod, int* complete) {
  std::string rv;
  {
    etna::net::http::HttpClient http(options);
    auto r = http.Do("GET", "/api/v1/namespaces/" + ns + "/pods");
    MustOk(r, 200, "list before watching");
    rv = json::parse(r->body)["metadata"]["resourceVersion"];
  }
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < watchers; ++w) {
    threads.emplace_back([&, w] {
      etna::net::http::HttpClient http(options);
      std::string path = "/api/v1/namespaces/" + ns + "/pods?watch=true&resourceVersion=" + rv;
      if (selector) path += "&fieldSelector=" + selector(w);
      int seen = 0;
      auto status = http.Stream("GET", path, [&](std::string_view data) {
        seen += static_cast<int>(std::count(data.begin(), data.end(), '\n'));
        return seen < each;
      });
      if (seen >= each) {
        ++done;
      } else {
        std::fprintf(stderr, "api_bench: a watcher ended after %d events: %s\n", seen,
                     status.ok() ? "closed" : status.status().ToString().c_str());
      }
    });
  }
  auto t0 = Clock::now();
  {
    std::vector<std::thread> writers;
    for (int c = 0; c < 4; ++c) {
      writers.emplace_back([&, c] {
        etna::net::http::HttpClient http(options);
        for (int i = c; i < pods; i += 4) {
          MustOk(http.Do("POST", "/api/v1/namespaces/" + ns + "/pods", pod(i).dump()), 201,
                 "create watched pod");
        }
      });
    }
    for (auto& t : writers) t.join();
  }
  for (auto& t : threads) t.join();
  *complete = done;
  return Ms(Clock::now() - t0) / 1000;
}

// etcd's own throughput on `etcd`: `etcdctl check perf --load=xl` (60 s of puts from 1,000
// clients), its "Throughput is N writes/s" figure; -1 when it did not run.
long EtcdCheckPerf(const etna::store::testing::EtcdCluster& etcd) {
  const std::string command =
      fmt::format("ETCDCTL_API=3 etcdctl --endpoints={} check perf --load=xl 2>&1",
                  fmt::join(etcd.ClientUrls(), ","));
  FILE* out = popen(command.c_str(), "r");
  if (!out) return -1;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), out)) > 0) text.append(buf, n);
  pclose(out);
  const std::string sign = "Throughput";
  size_t at = text.find(sign);
  if (at == std::string::npos) {
    std::fprintf(stderr, "api_bench: etcdctl check perf said:\n%s\n", text.c_str());
    return -1;
  }
  at = text.find_first_of("0123456789", at);
  return at == std::string::npos ? -1 : std::atol(text.c_str() + at);
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  flags.etna = (std::filesystem::path(argv[0]).parent_path() / "../src/cli/etna").string();
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--etna")
      flags.etna = argv[i + 1];
    else if (a == "--clients")
      flags.clients = std::stoi(argv[i + 1]);
    else if (a == "--creates")
      flags.creates = std::stoi(argv[i + 1]);
    else if (a == "--list-pods")
      flags.list_pods = std::stoi(argv[i + 1]);
    else if (a == "--watchers")
      flags.watchers = std::stoi(argv[i + 1]);
    else if (a == "--events")
      flags.events = std::stoi(argv[i + 1]);
    else if (a == "--keep")
      flags.keep = argv[i + 1];
    else if (a == "--store")
      flags.store = argv[i + 1];
  }
  if (flags.store != "sqlite" && flags.store != "etcd") {
    std::fprintf(stderr, "api_bench: --store \"%s\": want sqlite or etcd\n", flags.store.c_str());
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  std::string data_dir =
      (std::filesystem::temp_directory_path() / fmt::format("etna-api-bench-{}", getpid()))
          .string();
  std::filesystem::create_directories(data_dir);
  std::unique_ptr<etna::store::testing::EtcdCluster> etcd;
  std::vector<std::string> server_args;
  if (flags.store == "etcd") {
    auto started = etna::store::testing::EtcdCluster::Start(3, data_dir + "/etcd");
    if (!started.ok()) {
      std::fprintf(stderr, "api_bench: %s\n", started.status().ToString().c_str());
      return 1;
    }
    etcd = std::move(*started);
    server_args = {"--etcd-servers", fmt::format("{}", fmt::join(etcd->ClientUrls(), ","))};
  }
  Preload(data_dir, flags.list_pods, etcd.get());
  Server server = StartServer(flags.etna, data_dir, server_args);
  std::string token = ReadToken(data_dir);
  auto options = ClientFor(server, data_dir, token);
  {
    etna::net::http::HttpClient admin(options);
    for (const char* ns : {"load", "fan", "nodew"}) {
      MustOk(admin.Do("POST", "/api/v1/namespaces", json{{"metadata", {{"name", ns}}}}.dump()), 201,
             "create namespace");
    }
  }

  // Creates: each a durable write.
  std::vector<std::vector<double>> latencies(flags.clients);
  int per_client = flags.creates / flags.clients;
  auto t0 = Clock::now();
  {
    std::vector<std::thread> threads;
    for (int c = 0; c < flags.clients; ++c) {
      threads.emplace_back([&, c] {
        etna::net::http::HttpClient http(options);
        for (int i = 0; i < per_client; ++i) {
          std::string body = PodObject("load", fmt::format("c{}-{}", c, i)).dump();
          auto start = Clock::now();
          MustOk(http.Do("POST", "/api/v1/namespaces/load/pods", body), 201, "create");
          latencies[c].push_back(Ms(Clock::now() - start));
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  double create_s = Ms(Clock::now() - t0) / 1000;
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  double p99 = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  double creates_per_s = per_client * flags.clients / create_s;

  // Gets.
  std::atomic<int> gets{0};
  t0 = Clock::now();
  {
    std::vector<std::thread> threads;
    for (int c = 0; c < flags.clients; ++c) {
      threads.emplace_back([&, c] {
        etna::net::http::HttpClient http(options);
        std::mt19937 rng(c);
        for (int i = 0; i < 500; ++i) {
          std::string name = fmt::format("c{}-{}", rng() % flags.clients, rng() % per_client);
          MustOk(http.Do("GET", "/api/v1/namespaces/load/pods/" + name), 200, "get");
          ++gets;
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  double gets_per_s = gets / (Ms(Clock::now() - t0) / 1000);

  // List of 100k pods (best of three).
  double list_ms = 1e18;
  {
    etna::net::http::HttpClient http(options);
    for (int i = 0; i < 3; ++i) {
      auto start = Clock::now();
      auto r = http.Do("GET", "/api/v1/namespaces/default/pods");
      MustOk(r, 200, "list");
      list_ms = std::min(list_ms, Ms(Clock::now() - start));
      json list = json::parse(r->body);
      if (static_cast<int>(list["items"].size()) != flags.list_pods) {
        std::fprintf(stderr, "api_bench: list returned %zu pods\n", list["items"].size());
        return 1;
      }
    }
  }

  // Watch fan-out: every watcher must see every event.
  int complete = 0;
  double fan_s = WatchFanOut(
      options, "fan", flags.watchers, flags.events, flags.events, nullptr,
      [](int i) { return PodObject("fan", fmt::format("fan-{}", i)); }, &complete);
  double fanout = static_cast<double>(complete) * flags.events / fan_s;
  int failed = flags.watchers - complete;

  // Agents' watches: each watcher follows one node's pods (fieldSelector spec.nodeName), and
  // each of the pods lands on one of those nodes; the server's CPU for the phase is the figure.
  double cpu_before = server.daemon.CpuSeconds();
  int node_complete = 0;
  double node_s = WatchFanOut(
      options, "nodew", flags.watchers, flags.watchers, 1,
      [](int w) { return fmt::format("spec.nodeName%3Dnode-{}", w); },
      [](int i) {
        json p = PodObject("nodew", fmt::format("nodew-{}", i));
        p["spec"]["nodeName"] = fmt::format("node-{}", i);
        return p;
      },
      &node_complete);
  double node_cpu_s = server.daemon.CpuSeconds() - cpu_before;
  failed += flags.watchers - node_complete;
  long rss = static_cast<long>(server.daemon.PeakRssMb());

  server.daemon.Stop();
  std::string check_perf;
  if (etcd) check_perf = fmt::format(" etcdctl_check_perf_writes_per_s={}", EtcdCheckPerf(*etcd));
  etcd.reset();
  if (flags.keep.empty()) {
    std::filesystem::remove_all(data_dir);
  } else {
    std::filesystem::rename(data_dir, flags.keep);
  }
  std::printf(
      "BENCH api store=%s creates_per_s=%.0f gets_per_s=%.0f list_100k_pods_ms=%.1f watchers=%d "
      "watch_fanout_events_per_s=%.0f p99_create_ms=%.1f rss_mb=%ld%s\n",
      flags.store.c_str(), creates_per_s, gets_per_s, list_ms, complete, fanout, p99, rss,
      check_perf.c_str());
  std::printf("BENCH api-node-watch watchers=%d pods=%d elapsed_s=%.2f server_cpu_s=%.2f\n",
              node_complete, flags.watchers, node_s, node_cpu_s);
  return failed == 0 ? 0 : 1;
}
