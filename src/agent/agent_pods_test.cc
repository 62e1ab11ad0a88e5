// Pods run by the agent as processes, seen through the API: env, logs, exit codes, phases,
// restarts, exec failures, graceful and outright deletion, adoption by a new agent after the
// old one went away, the logs endpoint and probes, eviction for ephemeral storage.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "agent/agent_test_fixture.h"
#include "agent/runtime/storage_limits.h"

namespace etna::agent::testing {
namespace {

TEST_F(AgentTest, PodRunsWithGpuEnvAndFailsWithItsExitCode) {
  StartAgent(Options("n1"));
  CreatePod(
      "p1", "n1", "echo $CUDA_VISIBLE_DEVICES $NVIDIA_VISIBLE_DEVICES $MY_POD; exit 3", "Never",
      {{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", "all"}},
       {{"name", "MY_POD"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}}},
      {{api::types::kGpuIdsAnnotation, "0,1"}, {api::types::kGpuUuidsAnnotation, "GPU-a,GPU-b"}});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Failed"; })) << Pod("p1").dump();
  json p = Pod("p1");
  json cs = p["status"]["containerStatuses"][0];
  EXPECT_EQ(cs["state"]["terminated"]["exitCode"], 3);
  EXPECT_EQ(cs["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(cs["restartCount"], 0);
  EXPECT_EQ(p["status"]["podIP"], "127.0.0.1");
  EXPECT_EQ(p["status"]["hostIP"], "127.0.0.1");
  EXPECT_EQ(Logs("p1"), "0,1 GPU-a,GPU-b p1\n");
}

TEST_F(AgentTest, DownwardApiAndNoGpus) {
  StartAgent(Options("n1"));
  json env = {
      {{"name", "NS"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}},
      {{"name", "UID"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.uid"}}}}}},
      {{"name", "IDX"},
       {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.annotations['idx']"}}}}}},
      {{"name", "IP"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.podIP"}}}}}},
      {{"name", "NODE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}}};
  CreatePod("p2", "n1",
            "echo \"$NS $IDX $IP $NODE [$CUDA_VISIBLE_DEVICES] $NVIDIA_VISIBLE_DEVICES\"; "
            "echo $UID",
            "Never", env, {{"idx", "7"}});
  ASSERT_TRUE(WaitFor([&] { return Phase("p2") == "Succeeded"; })) << Pod("p2").dump();
  std::string uid = Pod("p2")["metadata"]["uid"];
  EXPECT_EQ(Logs("p2"), "default 7 127.0.0.1 n1 [] void\n" + uid + "\n");
  EXPECT_EQ(Pod("p2")["status"]["containerStatuses"][0]["state"]["terminated"]["reason"],
            "Completed");
}

TEST_F(AgentTest, OnFailureRestartsAndCountsRestarts) {
  StartAgent(Options("n1"));
  std::string marker = dir_ + "/tried";
  CreatePod("p3", "n1",
            "if [ -f " + marker + " ]; then echo second; exit 0; fi; touch " + marker +
                "; echo first; exit 1",
            "OnFailure");
  ASSERT_TRUE(WaitFor([&] { return Phase("p3") == "Succeeded"; })) << Pod("p3").dump();
  json cs = Pod("p3")["status"]["containerStatuses"][0];
  EXPECT_EQ(cs["restartCount"], 1);
  EXPECT_EQ(cs["lastState"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(Logs("p3"), "second\n");
  EXPECT_EQ(Logs("p3", "?previous=true"), "first\n");
}

// The kubelet's eviction for ephemeral storage: a pod that writes past the sum of its
// containers' limits is stopped at once and ends Failed, reason Evicted, with an Event.
TEST_F(AgentTest, PodOverItsEphemeralStorageLimitIsEvicted) {
  AgentOptions o = Options("n1");
  o.storage_check_ms = 50;
  StartAgent(std::move(o));
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "filler"}, {"namespace", "default"}}},
              {"spec",
               {{"nodeName", "n1"},
                {"restartPolicy", "Never"},
                {"volumes", {{{"name", "scratch"}, {"emptyDir", json::object()}}}},
                {"containers",
                 {{{"name", "main"},
                   {"image", "busybox"},
                   {"command",
                    {"sh", "-c",
                     "echo small > $ETNA_VOLUME_SCRATCH/a; sleep 0.3; "
                     "head -c 3000000 /dev/zero > $ETNA_VOLUME_SCRATCH/big; sleep 30"}},
                   {"volumeMounts", {{{"name", "scratch"}, {"mountPath", "/scratch"}}}},
                   {"resources", {{"limits", {{"ephemeral-storage", "2Mi"}}}}}}}}}}};
  ASSERT_TRUE(api_.rest().Create(client::Path("pods", "default"), pod).ok());
  ASSERT_TRUE(WaitFor([&] { return Phase("filler") == "Failed"; }, std::chrono::seconds(10)))
      << Pod("filler").dump();
  json status = Pod("filler")["status"];
  EXPECT_EQ(status["reason"], "Evicted");
  EXPECT_EQ(status["message"],
            "Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ");
  EXPECT_EQ(status["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
}

TEST(StorageLimitsTest, EmptyDirSizeLimitAndContainerLimitAreJudgedApart) {
  std::string dir = ::testing::TempDir() + "/storage_limits";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/volumes/cache");
  std::filesystem::create_directories(dir + "/main");
  json pod = {
      {"spec",
       {{"volumes", {{{"name", "cache"}, {"emptyDir", {{"sizeLimit", "64Ki"}}}}}},
        {"containers",
         {{{"name", "main"}, {"resources", {{"limits", {{"ephemeral-storage", "1Mi"}}}}}}}}}}};
  EXPECT_EQ(runtime::EphemeralStorageViolation(pod, dir), "");
  { std::ofstream(dir + "/volumes/cache/f") << std::string(100'000, 'x'); }
  EXPECT_EQ(runtime::EphemeralStorageViolation(pod, dir),
            "Usage of EmptyDir volume \"cache\" exceeds the limit \"64Ki\". ");
  std::filesystem::remove(dir + "/volumes/cache/f");
  { std::ofstream(dir + "/main/0.log") << std::string(1'100'000, 'x'); }
  EXPECT_EQ(runtime::EphemeralStorageViolation(pod, dir),
            "Container main exceeded its local ephemeral storage limit \"1Mi\". ");
  std::filesystem::remove_all(dir);
}

TEST_F(AgentTest, ExecFailureIsAContainerStatusNotACrash) {
  StartAgent(Options("n1"));
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p4"}, {"namespace", "default"}}},
              {"spec",
               {{"nodeName", "n1"},
                {"restartPolicy", "Never"},
                {"containers",
                 {{{"name", "main"}, {"image", "x"}, {"command", {"/nonexistent/program"}}}}}}}};
  ASSERT_TRUE(api_.rest().Create(client::Path("pods", "default"), pod).ok());
  ASSERT_TRUE(WaitFor([&] { return Phase("p4") == "Failed"; })) << Pod("p4").dump();
  json t = Pod("p4")["status"]["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(t["reason"], "StartError");
  EXPECT_NE(t["message"].get<std::string>().find("/nonexistent/program"), std::string::npos);
}

TEST_F(AgentTest, GracefulDeleteSendsSigtermThenDeletesThePod) {
  StartAgent(Options("n1"));
  std::string file = dir_ + "/got-term";
  CreatePod("p5", "n1",
            "trap 'echo term > " + file +
                "; exit 0' TERM; echo started; "
                "while true; do sleep 0.05; done");
  ASSERT_TRUE(WaitFor([&] { return Logs("p5") == "started\n"; }));
  EXPECT_EQ(Phase("p5"), "Running");
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p5")).ok());
  ASSERT_TRUE(WaitFor([&] {
    return api_.rest().Get(client::Path("pods", "default", "p5")).status().code() ==
           StatusCode::kNotFound;
  }));
  EXPECT_EQ(TextOrEmpty(file), "term\n");
}

TEST_F(AgentTest, GracePeriodEndsWithSigkill) {
  StartAgent(Options("n1"));
  CreatePod("p6", "n1", "trap '' TERM; echo started; while true; do sleep 0.05; done", "Never",
            json::array(), json::object(), 1);
  ASSERT_TRUE(WaitFor([&] { return Logs("p6") == "started\n"; }));
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p6")).ok());
  ASSERT_TRUE(WaitFor([&] {
    return api_.rest().Get(client::Path("pods", "default", "p6")).status().code() ==
           StatusCode::kNotFound;
  }));
}

TEST_F(AgentTest, NewAgentAdoptsRunningContainers) {
  StartAgent(Options("n1"));
  std::string file = dir_ + "/starts";
  // "$$$$": Kubernetes' expansion turns "$$" into "$", so the shell sees "$$" (its pid).
  CreatePod("p7", "n1", "echo $$$$ >> " + file + "; exec sleep 60");
  ASSERT_TRUE(WaitFor([&] { return Phase("p7") == "Running" && !TextOrEmpty(file).empty(); }));
  pid_t pid = std::stoi(TextOrEmpty(file));
  pids_to_kill_.push_back(pid);
  agent_.reset();  // the agent goes away; the container does not
  ASSERT_EQ(kill(pid, 0), 0);
  StartAgent(Options("n1"));
  // The new agent owns the process: deleting the pod stops that very process.
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p7"), 1).ok());
  ASSERT_TRUE(WaitFor([&] {
    return api_.rest().Get(client::Path("pods", "default", "p7")).status().code() ==
           StatusCode::kNotFound;
  }));
  EXPECT_TRUE(WaitFor([&] { return kill(pid, 0) != 0; }));
  EXPECT_EQ(TextOrEmpty(file), std::to_string(pid) + "\n");  // started exactly once
}

TEST_F(AgentTest, StopPodsStopsThemGracefullyAndReportsShutdown) {
  AgentOptions o = Options("n1");
  o.stop_pods = true;
  StartAgent(std::move(o));
  std::string file = dir_ + "/got-term";
  CreatePod("p7s", "n1",
            "trap 'echo term > " + file + "; exit 0' TERM; echo $$$$ > " + dir_ +
                "/pid; while true; do sleep 0.05; done");
  ASSERT_TRUE(
      WaitFor([&] { return Phase("p7s") == "Running" && !TextOrEmpty(dir_ + "/pid").empty(); }));
  pid_t pid = std::stoi(TextOrEmpty(dir_ + "/pid"));
  agent_->Stop();
  EXPECT_NE(kill(pid, 0), 0);              // stopped before Stop returned
  EXPECT_EQ(TextOrEmpty(file), "term\n");  // by SIGTERM first
  json pod = Pod("p7s");
  EXPECT_EQ(pod.value("/status/reason"_json_pointer, std::string()), "Shutdown");
  // It exited 0 on SIGTERM, but it was stopped, not done: Failed, so its job runs it again.
  EXPECT_EQ(pod.value("/status/phase"_json_pointer, std::string()), "Failed");
}

TEST_F(AgentTest, AdoptedContainerThatEndedIsReported) {
  StartAgent(Options("n1"));
  std::string go = dir_ + "/go";
  std::string file = dir_ + "/starts";
  CreatePod("p8", "n1",
            "echo x >> " + file + "; while [ ! -f " + go + " ]; do sleep 0.02; done; exit 4");
  ASSERT_TRUE(WaitFor([&] { return Phase("p8") == "Running"; }));
  agent_.reset();
  std::ofstream(go).close();  // it ends while no agent runs
  StartAgent(Options("n1"));
  ASSERT_TRUE(WaitFor([&] { return Phase("p8") == "Failed"; })) << Pod("p8").dump();
  EXPECT_EQ(Pod("p8")["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 4);
  EXPECT_EQ(TextOrEmpty(file), "x\n");
}

TEST_F(AgentTest, LogsEndpointTailsAndFollows) {
  StartAgent(Options("n1"));
  std::string go = dir_ + "/go";
  CreatePod("p9", "n1",
            "for i in 1 2 3 4 5; do echo $i; done; while [ ! -f " + go +
                " ]; do sleep 0.02; done; echo end");
  ASSERT_TRUE(WaitFor([&] { return Logs("p9") == "1\n2\n3\n4\n5\n"; }));
  EXPECT_EQ(Logs("p9", "?tailLines=2"), "4\n5\n");
  EXPECT_EQ(Logs("p9", "?limitBytes=3"), "1\n2");
  net::http::ClientOptions o;
  o.port = agent_->port();
  o.tls = false;
  net::http::HttpClient client(o);
  std::mutex mu;
  std::string streamed;
  auto seen = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return streamed;
  };
  std::thread follower([&] {
    client
        .Stream("GET", "/containerLogs/default/p9/main?follow=true&tailLines=1",
                [&](std::string_view data) {
                  std::lock_guard<std::mutex> lock(mu);
                  streamed += data;
                  return true;
                })
        .ok();
  });
  bool attached = WaitFor([&] { return seen() == "5\n"; });  // it has the tail line
  std::ofstream(go).close();
  follower.join();  // the stream ends when the container does
  ASSERT_TRUE(attached) << seen();
  EXPECT_EQ(seen(), "5\nend\n");
  net::http::HttpClient health(o);
  auto h = health.Do("GET", "/healthz");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->body, "ok");
  auto missing = health.Do("GET", "/containerLogs/default/nope/main");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
}

// The files under the agent's data dir whose names end with `suffix`.
std::vector<std::filesystem::path> FilesEndingWith(const std::string& dir,
                                                   const std::string& suffix) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().string().ends_with(suffix)) out.push_back(e.path());
  }
  return out;
}

// A container writing far past the log cap has its log rotated (logs and a follower go on from
// the new start), and a crash-looping one keeps the logs of two runs, not of every run.
TEST_F(AgentTest, ContainerLogsAreRotatedAtTheirCapAndOldRunsRemoved) {
  AgentOptions o = Options("n1");
  o.container_log_max_bytes = 64 * 1024;
  o.container_log_max_files = 3;
  StartAgent(std::move(o));
  std::string go = dir_ + "/go";
  CreatePod("chatty", "n1",
            "head -c 200000 /dev/zero | tr '\\0' x; echo; while [ ! -f " + go +
                " ]; do sleep 0.02; done; echo end");
  ASSERT_TRUE(WaitFor([&] { return !FilesEndingWith(dir_ + "/data", ".log.1").empty(); },
                      std::chrono::seconds(10)))
      << "no rotated log";
  // Rotated past the cap; on a loaded machine the check may come while the x's are still being
  // written (then the rest starts the new log, or a second rotation), so no exact split.
  EXPECT_GT(std::filesystem::file_size(FilesEndingWith(dir_ + "/data", ".log.1")[0]), 64u * 1024);
  ASSERT_TRUE(WaitFor([&] { return Logs("chatty").size() <= 64u * 1024; }))
      << "the current log stays past its cap";
  std::ofstream(go).close();
  ASSERT_TRUE(WaitFor([&] { return Phase("chatty") == "Succeeded"; }));
  std::string current = Logs("chatty");
  EXPECT_TRUE(current.ends_with("end\n")) << current.substr(0, 200);
  EXPECT_LT(current.size(), 200000u) << "the current log starts again after a rotation";

  CreatePod("looping", "n1", "echo run; exit 1", "Always");
  ASSERT_TRUE(WaitFor(
      [&] {
        return Pod("looping").value("/status/containerStatuses/0/restartCount"_json_pointer, 0) >=
               4;
      },
      std::chrono::seconds(20)));
  size_t looping_logs = 0;
  for (const auto& f : FilesEndingWith(dir_ + "/data", ".log")) {
    looping_logs +=
        f.string().find(Pod("looping")["metadata"]["uid"].get<std::string>()) != std::string::npos;
  }
  EXPECT_LE(looping_logs, 3u) << "the current run, the previous one and at most one starting";
}

// What a container's main process leaves running when it ends is killed with it, as a pid
// namespace's processes end with its first one (the soak saw a `sleep` left behind holding its
// pod's GPUs after the pod had Succeeded and was deleted).
TEST_F(AgentTest, ProcessesTheMainProcessLeftBehindEndWithIt) {
  StartAgent(Options("n1"));
  std::string file = dir_ + "/left";
  pid_t pid = RunPodLeavingAProcess("leaver", "sleep 60 & echo $! > " + file + "; exit 0", file);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(WaitFor([&] { return kill(pid, 0) != 0; }, std::chrono::seconds(5)))
      << "the background sleep " << pid << " outlived its container";
}

// Also one that left the container's session (setsid): it is still below the shim, which
// inherits every orphan of the container as a child subreaper.
TEST_F(AgentTest, AProcessLeftBehindInASessionOfItsOwnEndsWithTheContainer) {
  StartAgent(Options("n1"));
  std::string file = dir_ + "/left";
  pid_t pid = RunPodLeavingAProcess(
      "escaper",
      "python3 -c 'import os, sys, time; os.setsid(); open(sys.argv[1], \"w\").write("
      "str(os.getpid())); time.sleep(60)' " +
          file + " & while [ ! -s " + file + " ]; do sleep 0.05; done; exit 0",
      file);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(WaitFor([&] { return kill(pid, 0) != 0; }, std::chrono::seconds(5)))
      << "the process " << pid << " in a session of its own outlived its container";
}

TEST_F(AgentTest, PodDeletedOutrightIsKilled) {
  StartAgent(Options("n1"));
  std::string file = dir_ + "/pid";
  CreatePod("p11", "n1", "echo $$$$ > " + file + "; exec sleep 60");
  ASSERT_TRUE(WaitFor([&] { return Phase("p11") == "Running" && !TextOrEmpty(file).empty(); }));
  pid_t pid = std::stoi(TextOrEmpty(file));
  pids_to_kill_.push_back(pid);
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p11"), 0).ok());
  EXPECT_TRUE(WaitFor([&] { return kill(pid, 0) != 0; }));
}

TEST_F(AgentTest, InitContainersRunFirstAndAFailureFailsThePod) {
  StartAgent(Options("n1"));
  auto pod = [&](const std::string& name, const std::string& init_script) {
    json p = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"nodeName", "n1"},
                {"restartPolicy", "Never"},
                {"volumes", {{{"name", "work"}, {"emptyDir", json::object()}}}},
                {"initContainers",
                 {{{"name", "prepare"},
                   {"image", "x"},
                   {"volumeMounts", {{{"name", "work"}, {"mountPath", "/work"}}}},
                   {"command", {"sh", "-c", init_script}}}}},
                {"containers",
                 {{{"name", "main"},
                   {"image", "x"},
                   {"volumeMounts", {{{"name", "work"}, {"mountPath", "/work"}}}},
                   {"command", {"sh", "-c", "cat $ETNA_VOLUME_WORK/prepared"}}}}}}}};
    ASSERT_TRUE(api_.rest().Create(client::Path("pods", "default"), p).ok());
  };
  pod("init-ok", "echo ready > $ETNA_VOLUME_WORK/prepared");
  pod("init-fails", "exit 2");
  ASSERT_TRUE(WaitFor([&] { return Phase("init-ok") == "Succeeded"; })) << Pod("init-ok").dump();
  EXPECT_EQ(Logs("init-ok"), "ready\n");
  EXPECT_EQ(Pod("init-ok")["status"]["initContainerStatuses"][0]["state"]["terminated"]["exitCode"],
            0);
  ASSERT_TRUE(WaitFor([&] { return Phase("init-fails") == "Failed"; })) << Pod("init-fails").dump();
  json failed = Pod("init-fails")["status"];
  EXPECT_EQ(failed["initContainerStatuses"][0]["state"]["terminated"]["exitCode"], 2);
  EXPECT_TRUE(failed["containerStatuses"][0]["state"].contains("waiting"));
}

TEST_F(AgentTest, ReadinessAndLivenessProbes) {
  StartAgent(Options("n1"));
  std::string ready = dir_ + "/ready";
  std::string starts = dir_ + "/starts";
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p10"}, {"namespace", "default"}}},
              {"spec",
               {{"nodeName", "n1"},
                {"restartPolicy", "Always"},
                {"containers",
                 {{{"name", "main"},
                   {"image", "x"},
                   {"command", {"sh", "-c", "echo x >> " + starts + "; exec sleep 60"}},
                   {"readinessProbe",
                    {{"exec", {{"command", {"test", "-f", ready}}}}, {"periodSeconds", 1}}},
                   {"livenessProbe",
                    {{"exec", {{"command", {"sh", "-c", "test $(wc -l < " + starts + ") -lt 2"}}}},
                     {"periodSeconds", 1},
                     {"failureThreshold", 1}}}}}}}}};
  ASSERT_TRUE(api_.rest().Create(client::Path("pods", "default"), pod).ok());
  ASSERT_TRUE(WaitFor([&] { return Phase("p10") == "Running"; }));
  EXPECT_EQ(Pod("p10")["status"]["containerStatuses"][0]["ready"], false);
  std::ofstream(ready).close();
  ASSERT_TRUE(WaitFor(
      [&] { return Pod("p10").value("/status/containerStatuses/0/ready"_json_pointer, false); }));
  // Liveness fails once a second start is recorded: simulate by appending a line.
  std::ofstream(starts, std::ios::app) << "x\n";
  ASSERT_TRUE(WaitFor([&] {
    return Pod("p10").value("/status/containerStatuses/0/restartCount"_json_pointer, 0) >= 1;
  }));
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p10"), 0).ok());
}

TEST_F(AgentTest, PodsResolveTheirJobsPeersAndTheirNamespacesServices) {
  // The chief is bound to a node with no agent here: it resolves to that node's address.
  ASSERT_TRUE(api_.rest().Create(client::Path("nodes"), {{"metadata", {{"name", "n2"}}}}).ok());
  ASSERT_TRUE(
      api_.rest()
          .MergePatch(
              client::Path("nodes", "", "n2"),
              {{"status", {{"addresses", {{{"type", "InternalIP"}, {"address", "10.0.0.2"}}}}}}},
              "status")
          .ok());
  json endpoints = {{"metadata", {{"name", "web"}, {"namespace", "default"}}},
                    {"subsets", {{{"addresses", {{{"ip", "10.0.0.9"}}}}}}}};
  ASSERT_TRUE(api_.rest().Create(client::Path("endpoints", "default"), endpoints).ok());
  auto job_pod = [&](const std::string& name, const std::string& node, const std::string& script) {
    json pod = {{"metadata",
                 {{"name", name},
                  {"namespace", "default"},
                  {"labels", {{api::types::kJobNameLabel, "train"}}}}},
                {"spec",
                 {{"nodeName", node},
                  {"restartPolicy", "Never"},
                  {"containers",
                   {{{"name", "main"},
                     {"image", "busybox"},
                     {"command", {"sh", "-c", script}},
                     {"env",
                      {{{"name", "CHIEF_SERVICE"}, {"value", "train-chief-0"}},
                       {{"name", "WEB"}, {"value", "web.default.svc"}}}}}}}}}};
    auto r = api_.rest().Create(client::Path("pods", "default"), pod);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  };
  job_pod("train-chief-0", "n2", "true");
  StartAgent(Options("n1"));
  job_pod("train-worker-0", "n1", "echo $CHIEF_SERVICE $WEB");
  ASSERT_TRUE(WaitFor([&] { return Phase("train-worker-0") == "Succeeded"; }));
  EXPECT_EQ(Logs("train-worker-0"), "10.0.0.2 10.0.0.9\n");
  std::string uid = Pod("train-worker-0")["metadata"]["uid"];
  std::string hosts = TextOrEmpty(dir_ + "/data/pods/" + uid + "/etc/hosts");
  EXPECT_NE(hosts.find("127.0.0.1\ttrain-worker-0\n"), std::string::npos) << hosts;
  EXPECT_NE(hosts.find("10.0.0.2\ttrain-chief-0\n"), std::string::npos) << hosts;
  EXPECT_NE(hosts.find("10.0.0.9\tweb.default.svc.cluster.local web.default.svc web.default web\n"),
            std::string::npos)
      << hosts;
}

}  // namespace
}  // namespace etna::agent::testing
