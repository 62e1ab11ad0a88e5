// A pod's /etc/hosts: its own names, the names it resolves, hostAliases; rewritten in place; and
// env values naming a host replaced by the address for host processes.
#include "agent/runtime/pod_hosts.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "agent/peer_hosts.h"
#include "common/file.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;

json JobPod(const std::string& name, const std::string& node, const std::string& uid) {
  return {{"metadata",
           {{"name", name},
            {"namespace", "team"},
            {"uid", uid},
            {"labels", {{"volcano.sh/job-name", "train"}}}}},
          {"spec", {{"nodeName", node}, {"hostname", name}, {"subdomain", "train"}}}};
}

TEST(PodHostsTest, OwnNamesPeersServicesThenAliases) {
  json pod = JobPod("train-worker-0", "n1", "u1");
  pod["spec"]["hostAliases"] = {{{"ip", "10.9.9.9"}, {"hostnames", {"db", "db.local"}}}};
  std::string file = PodHostsFile(pod, "10.0.0.1", {{"10.0.0.2", {"a", "b"}}, {"", {"c"}}});
  EXPECT_EQ(file,
            "# Kubernetes-managed hosts file (etna).\n127.0.0.1\tlocalhost\n"
            "::1\tlocalhost ip6-localhost ip6-loopback\n"
            "10.0.0.1\ttrain-worker-0.train.team.svc.cluster.local train-worker-0.train "
            "train-worker-0\n"
            "10.0.0.2\ta b\n"
            "10.9.9.9\tdb db.local\n");
}

TEST(PodHostsTest, PeersResolveToTheirPodIpElseTheirNodesAddress) {
  json self = JobPod("train-worker-0", "n1", "u1");
  json chief = JobPod("train-chief-0", "n2", "u2");
  json started = JobPod("train-worker-1", "n3", "u3");
  started["status"]["podIP"] = "10.0.0.33";
  json unbound = JobPod("train-worker-2", "", "u4");
  json done = JobPod("train-worker-3", "n2", "u5");
  done["status"]["phase"] = "Succeeded";
  json seed_style = {{"metadata",
                      {{"name", "train-evaluator-0"},
                       {"namespace", "team"},
                       {"uid", "u6"},
                       {"labels", {{"volcano.sh/job-name", "train"}}}}},
                     {"spec", {{"nodeName", "n2"}}}};
  json endpoints = {
      {"metadata", {{"name", "train"}, {"namespace", "team"}}},
      {"subsets",
       {{{"addresses", {{{"ip", "10.0.0.2"}, {"hostname", "train-chief-0"}}, {{"ip", "10.0.0.3"}}}},
         {"notReadyAddresses", {{{"ip", "10.0.0.4"}}}}}}}};
  auto entries = PeerHostEntries(self, {self, chief, started, unbound, done, seed_style},
                                 {{"n2", "10.0.0.2"}, {"n3", "10.0.0.3"}}, {endpoints});
  std::vector<HostEntry> want = {
      {"10.0.0.2",
       {"train-chief-0.train.team.svc.cluster.local", "train-chief-0.train", "train-chief-0"}},
      {"10.0.0.33",
       {"train-worker-1.train.team.svc.cluster.local", "train-worker-1.train", "train-worker-1"}},
      {"",
       {"train-worker-2.train.team.svc.cluster.local", "train-worker-2.train", "train-worker-2"}},
      {"10.0.0.2", {"train-evaluator-0"}},
      {"10.0.0.2", {"train.team.svc.cluster.local", "train.team.svc", "train.team", "train"}, true},
      {"10.0.0.2", {"train-chief-0.train.team.svc.cluster.local", "train-chief-0.train"}, true},
      {"10.0.0.3",
       {"train.team.svc.cluster.local", "train.team.svc", "train.team", "train"},
       true}};
  EXPECT_EQ(entries, want);
}

TEST(PodHostsTest, EnvValuesNamingAHostBecomeItsAddress) {
  json pod = JobPod("train-worker-0", "n1", "u1");
  std::vector<HostEntry> resolved = {{"10.0.0.2", {"train-chief-0.train", "train-chief-0"}},
                                     {"10.0.0.5", {"web.team", "web"}, true}};
  std::vector<std::pair<std::string, std::string>> env = {{"HOSTNAME", "train-worker-0"},
                                                          {"CHIEF", "train-chief-0"},
                                                          {"MASTER_ADDR", "train-chief-0.train"},
                                                          {"SELF", "train-worker-0.train"},
                                                          {"ROLE", "web"},
                                                          {"WEB", "web.team"},
                                                          {"OTHER", "train-chief-0:29500"}};
  ASSERT_TRUE(ResolveHostValues(pod, "10.0.0.1", resolved,
                                {"CHIEF", "MASTER_ADDR", "SELF", "ROLE", "WEB", "OTHER"}, &env)
                  .ok());
  std::vector<std::pair<std::string, std::string>> want = {{"HOSTNAME", "train-worker-0"},
                                                           {"CHIEF", "10.0.0.2"},
                                                           {"MASTER_ADDR", "10.0.0.2"},
                                                           {"SELF", "10.0.0.1"},
                                                           {"ROLE", "web"},
                                                           {"WEB", "10.0.0.5"},
                                                           {"OTHER", "train-chief-0:29500"}};
  EXPECT_EQ(env, want);
}

TEST(PodHostsTest, EnvValueNamingAPeerNotPlacedYetWaitsForItsAddress) {
  json pod = JobPod("train-worker-0", "n1", "u1");
  std::vector<HostEntry> resolved = {{"", {"train-chief-0.train", "train-chief-0"}}};
  std::vector<std::pair<std::string, std::string>> env = {{"MASTER_ADDR", "train-chief-0.train"}};
  Status waiting = ResolveHostValues(pod, "10.0.0.1", resolved, {"MASTER_ADDR"}, &env);
  EXPECT_EQ(waiting.code(), StatusCode::kUnavailable);
  EXPECT_NE(waiting.message().find("MASTER_ADDR"), std::string::npos) << waiting.message();
  EXPECT_EQ(env[0].second, "train-chief-0.train");
  resolved.push_back({"10.0.0.2", {"train-chief-0.train"}});  // placed: the address wins
  ASSERT_TRUE(ResolveHostValues(pod, "10.0.0.1", resolved, {"MASTER_ADDR"}, &env).ok());
  EXPECT_EQ(env[0].second, "10.0.0.2");
}

TEST(PodHostsTest, RewrittenInPlaceOnlyWhenChanged) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("etna_pod_hosts_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WritePodHosts(dir, "h", "one\ntwo\n").ok());
  struct stat before {};
  ASSERT_EQ(stat(PodHostsPath(dir).c_str(), &before), 0);
  ASSERT_TRUE(WritePodHosts(dir, "h", "x\n").ok());
  struct stat after {};
  ASSERT_EQ(stat(PodHostsPath(dir).c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);  // a bind mount of the file sees the new text
  EXPECT_EQ(*ReadFile(PodHostsPath(dir)), "x\n");
  EXPECT_EQ(*ReadFile(dir + "/etc/hostname"), "h\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace etna::agent::runtime
