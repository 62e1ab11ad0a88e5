#include "agent/runtime/oci_spec.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace etna::agent::runtime {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json Pod(json container, json extra_spec = json::object()) {
  json pod = {{"metadata",
               {{"name", "p"},
                {"namespace", "default"},
                {"uid", "u1"},
                {"annotations", {{"etna.io/gpu-ids", "2,3"}}}}},
              {"spec", {{"containers", {container}}, {"volumes", json::array()}}}};
  for (const auto& [k, v] : extra_spec.items()) pod["spec"][k] = v;
  return pod;
}

PodContext Context() {
  PodContext ctx;
  ctx.node_name = "n1";
  ctx.pod_dir = (fs::temp_directory_path() / ("etna_oci_" + std::to_string(getpid()))).string();
  ctx.data_dir = ctx.pod_dir;
  return ctx;
}

NodeSide Node() {
  NodeSide n;
  n.rootfs = "/run/x/rootfs";
  n.cgroups_path = "/etna/podu1/main-0";
  n.hosts_file = "/pods/u1/etc/hosts";
  n.devices = {{"/dev/nvidia2", 'c', 195, 2}, {"/dev/nvidiactl", 'c', 195, 255}};
  return n;
}

std::vector<std::string> Args(const json& container, const ImageConfig& image) {
  auto a = ContainerArgs(container, image, {{"X", "1"}});
  return a.ok() ? *a : std::vector<std::string>{"error: " + a.status().message()};
}

TEST(OciSpecTest, CommandAndArgsOverTheImagesEntrypointAndCmd) {
  ImageConfig image;
  image.entrypoint = {"/init"};
  image.cmd = {"serve"};
  EXPECT_EQ(Args(json::object(), image), (std::vector<std::string>{"/init", "serve"}));
  EXPECT_EQ(Args({{"args", {"run", "$(X)"}}}, image),
            (std::vector<std::string>{"/init", "run", "1"}));
  EXPECT_EQ(Args({{"command", {"sh"}}}, image), std::vector<std::string>{"sh"});
  EXPECT_EQ(Args({{"command", {"sh"}}, {"args", {"-c", "x"}}}, image),
            (std::vector<std::string>{"sh", "-c", "x"}));
  EXPECT_NE(Args(json::object(), ImageConfig())[0].find("no Entrypoint or Cmd"), std::string::npos);
}

TEST(OciSpecTest, LimitsDevicesMountsAndEnvironment) {
  json c = {{"name", "main"},
            {"command", {"train"}},
            {"env", {{{"name", "RANK"}, {"value", "0"}}}},
            {"resources",
             {{"limits", {{"memory", "1Gi"}, {"cpu", "2"}}}, {"requests", {{"cpu", "500m"}}}}},
            {"volumeMounts", {{{"name", "data"}, {"mountPath", "/data"}, {"readOnly", true}}}}};
  ImageConfig image;
  image.env = {{"PATH", "/usr/bin"}, {"LANG", "C"}};
  NodeSide node = Node();
  node.volume_dirs = {{"data", "/host/data"}};
  node.driver_files = {{"/usr/lib/libcuda.so.535", "/usr/local/nvidia/lib64/libcuda.so.1"}};
  auto config = OciConfig(Pod(c), c, Context(), image, node);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const json& r = (*config)["linux"]["resources"];
  EXPECT_EQ(r["memory"]["limit"], 1LL << 30);
  EXPECT_EQ(r["cpu"]["shares"], 512);
  EXPECT_EQ(r["cpu"]["quota"], 200000);
  EXPECT_EQ(r["cpu"]["period"], 100000);
  // Every device is denied but the two given.
  ASSERT_EQ(r["devices"].size(), 3u);
  EXPECT_EQ(r["devices"][0]["allow"], false);
  EXPECT_EQ(r["devices"][1]["minor"], 2);
  EXPECT_EQ((*config)["linux"]["devices"].size(), 2u);
  EXPECT_EQ((*config)["linux"]["cgroupsPath"], "/etna/podu1/main-0");
  EXPECT_EQ((*config)["hostname"], "p");
  std::vector<std::string> env = (*config)["process"]["env"];
  auto has = [&](const std::string& kv) {
    return std::find(env.begin(), env.end(), kv) != env.end();
  };
  EXPECT_TRUE(has("LANG=C"));
  EXPECT_TRUE(has("RANK=0"));
  EXPECT_TRUE(has("PATH=/usr/bin:/usr/local/nvidia/bin"));
  EXPECT_TRUE(has("LD_LIBRARY_PATH=/usr/local/nvidia/lib64"));
  EXPECT_TRUE(has("CUDA_VISIBLE_DEVICES=0,1"));  // host GPUs 2 and 3, numbered inside
  bool data = false, hosts = false, lib = false;
  for (const auto& m : (*config)["mounts"]) {
    if (m["destination"] == "/data") {
      data = m["source"] == "/host/data" &&
             std::find(m["options"].begin(), m["options"].end(), "ro") != m["options"].end();
    }
    hosts = hosts || (m["destination"] == "/etc/hosts" && m["source"] == "/pods/u1/etc/hosts");
    lib = lib || m["destination"] == "/usr/local/nvidia/lib64/libcuda.so.1";
  }
  EXPECT_TRUE(data);
  EXPECT_TRUE(hosts);
  EXPECT_TRUE(lib);
  std::vector<std::string> ns;
  for (const auto& n : (*config)["linux"]["namespaces"]) ns.push_back(n["type"]);
  EXPECT_EQ(std::count(ns.begin(), ns.end(), "network"), 0);  // the node's network
  EXPECT_EQ(std::count(ns.begin(), ns.end(), "pid"), 1);
}

TEST(OciSpecTest, FieldsItCannotHonourAreRefusedByName) {
  json privileged = {
      {"name", "main"}, {"command", {"x"}}, {"securityContext", {{"privileged", true}}}};
  auto c = OciConfig(Pod(privileged), privileged, Context(), ImageConfig(), Node());
  EXPECT_NE(c.status().message().find("securityContext.privileged"), std::string::npos);
  json bad_mount = {{"name", "main"},
                    {"command", {"x"}},
                    {"volumeMounts", {{{"name", "nope"}, {"mountPath", "/x"}}}}};
  c = OciConfig(Pod(bad_mount), bad_mount, Context(), ImageConfig(), Node());
  EXPECT_NE(c.status().message().find("volumeMounts[0].name"), std::string::npos);
  json bad_memory = {
      {"name", "main"}, {"command", {"x"}}, {"resources", {{"limits", {{"memory", "lots"}}}}}};
  c = OciConfig(Pod(bad_memory), bad_memory, Context(), ImageConfig(), Node());
  EXPECT_NE(c.status().message().find("resources.limits.memory"), std::string::npos);
}

TEST(OciSpecTest, UsersByNumberOrByNameFromTheImage) {
  std::string root =
      (fs::temp_directory_path() / ("etna_user_" + std::to_string(getpid()))).string();
  fs::create_directories(root + "/etc");
  std::ofstream(root + "/etc/passwd") << "root:x:0:0::/root:/bin/sh\napp:x:1000:1001::/:/bin/sh\n";
  std::ofstream(root + "/etc/group") << "root:x:0:\nstaff:x:50:\n";
  auto u = ResolveUser("app", root);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->uid, 1000u);
  EXPECT_EQ(u->gid, 1001u);
  u = ResolveUser("1000:staff", root);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->gid, 50u);
  u = ResolveUser("7:8", root);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->uid, 7u);
  EXPECT_FALSE(ResolveUser("ghost", root).ok());
  fs::remove_all(root);
}

}  // namespace
}  // namespace etna::agent::runtime
