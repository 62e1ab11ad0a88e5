#include "sched/plugins/predicates.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "sched/framework/registry.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::NodeBuilder;
using testkit::Schedule;
using Op = SelectorRequirement::Op;
using E = Taint::Effect;

constexpr char kConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: predicates
)";

std::shared_ptr<PodSpec> Spec(const std::function<void(PodSpec&)>& fill) {
  auto spec = std::make_shared<PodSpec>();
  fill(*spec);
  return spec;
}

void SetLabels(Snapshot& s, std::string_view job, const Labels& labels) {
  for (const Job& j : s.jobs) {
    if (j.name != job) continue;
    for (TaskIdx t : j.tasks) s.tasks[t].labels = labels;
  }
}

PodAffinityTerm Term(Labels match, std::string key) {
  PodAffinityTerm t;
  t.selector.match_labels = std::move(match);
  t.topology_key = std::move(key);
  return t;
}

std::string Message(const Decision& d, const Snapshot& s, std::string_view job) {
  const JobUpdate* u = FindJob(d, s, job);
  return u ? u->message : "<no update>";
}

// ---- Static predicates: one pending task, three nodes; which node (if any) it may use. ----

struct StaticCase {
  const char* name;
  std::function<void(ClusterBuilder&)> nodes;
  std::shared_ptr<PodSpec> spec;
  std::string want_node;    // "" when unschedulable
  std::string want_reason;  // substring of the job's message when unschedulable
};

void ThreeNodes(ClusterBuilder& b, const std::function<void(NodeBuilder&, int)>& each) {
  for (int i = 1; i <= 3; ++i) {
    auto& n = b.Node(fmt::format("n{}", i)).Resources("cpu=8,memory=32Gi");
    n.Label("kubernetes.io/hostname", fmt::format("n{}", i));
    each(n, i);
  }
}

TEST(PredicatesTest, StaticChecks) {
  const StaticCase cases[] = {
      {"nodeSelector picks the labelled node",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) { n.Label("gpu", i == 2 ? "a100" : "t4"); });
       },
       Spec([](PodSpec& p) {
         p.node_selector = {{"gpu", "a100"}};
       }),
       "n2", ""},
      {"nodeSelector matching nothing",
       [](ClusterBuilder& b) { ThreeNodes(b, [](NodeBuilder&, int) {}); }, Spec([](PodSpec& p) {
         p.node_selector = {{"gpu", "a100"}};
       }),
       "", "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector"},
      {"required affinity In",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) { n.Label("zone", i == 3 ? "b" : "a"); });
       },
       Spec([](PodSpec& p) {
         p.node_affinity_required = {{{{"zone", Op::kIn, {"b", "c"}}}, {}}};
       }),
       "n3", ""},
      {"required affinity ANDs expressions within a term",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) {
           n.Label("zone", i == 1 ? "b" : "a");
           n.Label("cores", i == 3 ? "128" : "16");
         });
       },
       Spec([](PodSpec& p) {
         p.node_affinity_required = {
             {{{"zone", Op::kNotIn, {"b"}}, {"cores", Op::kGt, {"64"}}}, {}}};
       }),
       "n3", ""},
      {"required affinity ORs terms",
       [](ClusterBuilder& b) { ThreeNodes(b, [](NodeBuilder&, int) {}); }, Spec([](PodSpec& p) {
         p.node_affinity_required = {{{{"zone", Op::kExists, {}}}, {}},
                                     {{}, {{"metadata.name", Op::kIn, {"n2"}}}}};
       }),
       "n2", ""},
      {"matchFields on metadata.name NotIn",
       [](ClusterBuilder& b) { ThreeNodes(b, [](NodeBuilder&, int) {}); }, Spec([](PodSpec& p) {
         p.node_affinity_required = {{{}, {{"metadata.name", Op::kNotIn, {"n1", "n2"}}}}};
       }),
       "n3", ""},
      {"an empty term matches no node",
       [](ClusterBuilder& b) { ThreeNodes(b, [](NodeBuilder&, int) {}); },
       Spec([](PodSpec& p) { p.node_affinity_required = {NodeSelectorTerm{}}; }), "",
       "3 node(s) didn't match Pod's node affinity/selector"},
      {"untolerated NoSchedule taints",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) {
           if (i != 3) n.Taint("dedicated", "infer", E::kNoSchedule);
         });
       },
       nullptr, "n3", ""},
      {"NoSchedule and NoExecute both block",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) {
           n.Taint("dedicated", "infer", i == 1 ? E::kNoExecute : E::kNoSchedule);
         });
       },
       nullptr, "", "3 node(s) had untolerated taint {dedicated: infer}"},
      {"PreferNoSchedule does not block",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) {
           n.Taint("dedicated", "infer", i == 2 ? E::kPreferNoSchedule : E::kNoSchedule);
         });
       },
       nullptr, "n2", ""},
      {"a toleration lets the task in",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) {
           n.Taint("dedicated", i == 1 ? "infer" : "train", E::kNoSchedule);
         });
       },
       Spec([](PodSpec& p) {
         p.tolerations = {{"dedicated", Toleration::Op::kEqual, "infer"}};
       }),
       "n1", ""},
      {"cordoned and not ready nodes",
       [](ClusterBuilder& b) {
         ThreeNodes(b, [](NodeBuilder& n, int i) {
           if (i == 1) n.Cordoned();
           if (i == 3) n.NotReady();
         });
       },
       nullptr, "n2", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    c.nodes(b);
    b.Job("j").Tasks("w", 1, "cpu=1", c.spec);
    Snapshot s = b.Build();
    Decision d = Schedule(s, kConf);
    auto binds = BindMap(d);
    if (c.want_node.empty()) {
      EXPECT_TRUE(binds.empty());
      EXPECT_NE(Message(d, s, "j").find(c.want_reason), std::string::npos) << Message(d, s, "j");
    } else {
      ASSERT_EQ(binds.size(), 1u);
      EXPECT_EQ(binds.begin()->second, c.want_node);
    }
  }
}

TEST(PredicatesTest, MixedReasonsNameEveryCause) {
  ClusterBuilder b;
  ThreeNodes(b, [](NodeBuilder& n, int i) {
    if (i == 1) n.Cordoned();
    if (i == 2) n.Taint("gpu", "only", E::kNoSchedule);
  });
  b.Job("j").Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) { p.node_selector = {{"x", "y"}}; }));
  Snapshot s = b.Build();
  std::string m = Message(Schedule(s, kConf), s, "j");
  EXPECT_NE(m.find("1 node(s) were unschedulable"), std::string::npos) << m;
  // Node affinity is checked before taints, so n2 fails on the selector too.
  EXPECT_NE(m.find("2 node(s) didn't match Pod's node affinity/selector"), std::string::npos) << m;
}

// ---- Pod affinity and anti-affinity by topology domain. ----

// Zones: a = {za1, za2}, b = {zb1, zb2}. An existing app=db pod runs on za1 (full).
ClusterBuilder ZonedCluster() {
  ClusterBuilder b;
  for (const char* name : {"za1", "za2", "zb1", "zb2"}) {
    b.Node(name)
        .Resources(std::string(name) == "za1" ? "cpu=2,memory=8Gi" : "cpu=8,memory=32Gi")
        .Label("zone", name[1] == 'a' ? "a" : "b")
        .Label("kubernetes.io/hostname", name);
  }
  b.Job("db").Running("main", 1, "cpu=2", "za1").LastTaskLabels({{"app", "db"}});
  return b;
}

TEST(PredicatesTest, PodAffinityUsesTheWholeDomain) {
  ClusterBuilder b = ZonedCluster();
  b.Job("web").Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) {
                       p.pod_affinity_required = {Term({{"app", "db"}}, "zone")};
                     }));
  Snapshot s = b.Build();
  auto binds = BindMap(Schedule(s, kConf));
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds["web-w-0"], "za2") << "same zone as the db pod, not the same node";
}

TEST(PredicatesTest, PodAffinityFailsWhereNoMatchingPodOrNoTopologyLabel) {
  ClusterBuilder b = ZonedCluster();
  b.Node("nolabel").Resources("cpu=8,memory=32Gi");
  b.Job("web").Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) {
                       p.pod_affinity_required = {Term({{"app", "cache"}}, "zone")};
                     }));
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(BindMap(d).empty());
  std::string m = Message(d, s, "web");
  EXPECT_NE(m.find("4 node(s) didn't match pod affinity rules"), std::string::npos) << m;
  EXPECT_NE(m.find("1 Insufficient cpu"), std::string::npos) << m;
}

TEST(PredicatesTest, PodAntiAffinityAvoidsTheDomain) {
  ClusterBuilder b = ZonedCluster();
  b.Job("web").Tasks("w", 2, "cpu=1", Spec([](PodSpec& p) {
                       p.pod_anti_affinity_required = {Term({{"app", "db"}}, "zone")};
                     }));
  Snapshot s = b.Build();
  auto binds = BindMap(Schedule(s, kConf));
  ASSERT_EQ(binds.size(), 2u);
  for (const auto& [pod, node] : binds) EXPECT_EQ(node[1], 'b') << pod << " on " << node;
}

TEST(PredicatesTest, ExistingPodsAntiAffinityIsSymmetric) {
  ClusterBuilder b;
  for (const char* name : {"za1", "za2", "zb1"}) {
    b.Node(name).Resources("cpu=8,memory=32Gi").Label("zone", name[1] == 'a' ? "a" : "b");
  }
  b.Job("db").Running("main", 1, "cpu=1", "za1").LastTaskLabels({{"app", "db"}});
  b.Job("web").Tasks("w", 1, "cpu=1");
  Snapshot s = b.Build();
  // The running db pod repels app=web pods from its zone.
  s.tasks[s.jobs[0].tasks[0]].spec = Spec([](PodSpec& p) {
    p.pod_anti_affinity_required = {Term({{"app", "web"}}, "zone")};
  });
  SetLabels(s, "web", {{"app", "web"}});
  auto binds = BindMap(Schedule(s, kConf));
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds["web-w-0"], "zb1");

  // With zone b gone the web pod has nowhere to go, and the message says why.
  s.nodes[2].ready = false;
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(BindMap(d).empty());
  std::string m = Message(d, s, "web");
  EXPECT_NE(m.find("2 node(s) didn't satisfy existing pods anti-affinity rules"), std::string::npos)
      << m;
}

TEST(PredicatesTest, SelfAffineGangStartsAndStaysInOneDomain) {
  ClusterBuilder b;
  for (const char* name : {"za1", "za2", "zb1", "zb2"}) {
    b.Node(name).Resources("cpu=2,memory=8Gi").Label("zone", name[1] == 'a' ? "a" : "b");
  }
  b.Job("ring").MinAvailable(4).Tasks("w", 4, "cpu=1", Spec([](PodSpec& p) {
                                        p.pod_affinity_required = {Term({{"app", "ring"}}, "zone")};
                                      }));
  Snapshot s = b.Build();
  SetLabels(s, "ring", {{"app", "ring"}});
  auto binds = BindMap(Schedule(s, kConf));
  ASSERT_EQ(binds.size(), 4u);
  char zone = binds.begin()->second[1];
  for (const auto& [pod, node] : binds) EXPECT_EQ(node[1], zone) << pod << " on " << node;
}

TEST(PredicatesTest, HostnameAntiAffinitySpreadsAGang) {
  auto spec = Spec([](PodSpec& p) {
    p.pod_anti_affinity_required = {Term({{"app", "spread"}}, "kubernetes.io/hostname")};
  });
  for (int nodes : {2, 3}) {
    SCOPED_TRACE(nodes);
    ClusterBuilder b;
    for (int i = 0; i < nodes; ++i) {
      b.Node(fmt::format("n{}", i))
          .Resources("cpu=8,memory=32Gi")
          .Label("kubernetes.io/hostname", fmt::format("n{}", i));
    }
    b.Job("j").MinAvailable(3).Tasks("w", 3, "cpu=1", spec);
    Snapshot s = b.Build();
    SetLabels(s, "j", {{"app", "spread"}});
    Decision d = Schedule(s, kConf);
    auto binds = BindMap(d);
    if (nodes == 2) {
      EXPECT_TRUE(binds.empty()) << "the gang cannot place its third member";
      EXPECT_NE(Message(d, s, "j").find("2 node(s) didn't match pod anti-affinity rules"),
                std::string::npos)
          << Message(d, s, "j");
    } else {
      ASSERT_EQ(binds.size(), 3u);
      std::set<std::string> used;
      for (const auto& [pod, node] : binds) used.insert(node);
      EXPECT_EQ(used.size(), 3u);
    }
  }
}

TEST(PredicatesTest, NamespacesScopeAffinityTerms) {
  ClusterBuilder b = ZonedCluster();  // the db pod is in namespace "default"
  b.Job("web").Namespace("other").Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) {
                                          p.pod_affinity_required = {Term({{"app", "db"}}, "zone")};
                                        }));
  Snapshot s = b.Build();
  EXPECT_TRUE(BindMap(Schedule(s, kConf)).empty()) << "own namespace only by default";

  ClusterBuilder b2 = ZonedCluster();
  b2.Job("web").Namespace("other").Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) {
                                           auto t = Term({{"app", "db"}}, "zone");
                                           t.namespaces = {"default"};
                                           p.pod_affinity_required = {t};
                                         }));
  auto binds = BindMap(Schedule(b2.Build(), kConf));
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds["web-w-0"], "za2");
}

// ---- Arguments switch checks off. ----

struct ArgCase {
  const char* name;
  const char* args;
  bool want_bound;
};

TEST(PredicatesTest, ArgumentsSwitchChecks) {
  const ArgCase cases[] = {
      {"defaults", "", false},
      {"node affinity off", "predicate.NodeAffinityEnable: false", false},
      {"taints off", "predicate.TaintTolerationEnable: false", false},
      {"both off",
       "predicate.NodeAffinityEnable: false\n      predicate.TaintTolerationEnable: false", true},
      {"no-op arguments accepted",
       "predicate.NodeAffinityEnable: false\n      predicate.TaintTolerationEnable: false\n"
       "      predicate.NodePortsEnable: true\n      predicate.CacheEnable: false\n"
       "      predicate.VolumeZoneEnable: true\n      predicate.PodTopologySpreadEnable: true",
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=8,memory=32Gi").Taint("k", "v", E::kNoSchedule);
    b.Job("j").Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) { p.node_selector = {{"x", "y"}}; }));
    std::string conf = std::string(kConf);
    if (*c.args) conf += fmt::format("    arguments:\n      {}\n", c.args);
    EXPECT_EQ(BindMap(Schedule(b.Build(), conf)).size(), c.want_bound ? 1u : 0u);
  }
}

TEST(PredicatesTest, PodAffinityArgumentTurnsItOff) {
  ClusterBuilder b = ZonedCluster();
  b.Job("web").Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) {
                       p.pod_affinity_required = {Term({{"app", "none"}}, "zone")};
                     }));
  Snapshot s = b.Build();
  EXPECT_TRUE(BindMap(Schedule(s, kConf)).empty());
  std::string conf =
      std::string(kConf) + "    arguments:\n      predicate.PodAffinityEnable: false\n";
  EXPECT_EQ(BindMap(Schedule(s, conf)).size(), 1u);
}

TEST(PredicatesTest, BadArgumentsAreRejected) {
  for (const char* args : {"predicate.NodeAffinityEnable: maybe", "predicate.Bogus: true",
                           "predicate.resources.nvidia.com/gpu.cpu: 4"}) {
    SCOPED_TRACE(args);
    auto conf = ParseSchedulerConf(
        std::string(kConf) + fmt::format("    arguments:\n      {}\n", args), BuiltinRegistry());
    ASSERT_FALSE(conf.ok());
    std::string key(args, std::string_view(args).find(':'));
    EXPECT_NE(conf.status().ToString().find(key), std::string::npos) << conf.status().ToString();
  }
}

TEST(PredicatesTest, ProportionalKeepsCpuForGpuTasks) {
  constexpr char kArgs[] =
      "    arguments:\n      predicate.ProportionalEnable: true\n"
      "      predicate.resources: nvidia.com/gpu\n"
      "      predicate.resources.nvidia.com/gpu.cpu: 4\n"
      "      predicate.resources.nvidia.com/gpu.memory: 8\n";
  struct Case {
    const char* request;
    bool want_bound;
  };
  // The node has 2 idle GPUs, so a task without GPUs must leave 8 cores and 16 GB.
  for (const Case& c : {Case{"cpu=10", false}, Case{"cpu=8", true}, Case{"memory=50Gi", false},
                        Case{"cpu=12,nvidia.com/gpu=1", true}}) {
    SCOPED_TRACE(c.request);
    ClusterBuilder b;
    b.Node("gpu").Resources("cpu=16,memory=64Gi").Gpus(2);
    b.Job("j").Tasks("w", 1, c.request);
    Snapshot s = b.Build();
    Decision d = Schedule(s, std::string(kConf) + kArgs);
    EXPECT_EQ(BindMap(d).size(), c.want_bound ? 1u : 0u);
    if (!c.want_bound) {
      EXPECT_NE(Message(d, s, "j").find("proportional of resource nvidia.com/gpu check failed"),
                std::string::npos)
          << Message(d, s, "j");
    }
  }
  // Without the argument the same node takes the CPU task.
  ClusterBuilder b;
  b.Node("gpu").Resources("cpu=16,memory=64Gi").Gpus(2);
  b.Job("j").Tasks("w", 1, "cpu=10");
  EXPECT_EQ(BindMap(Schedule(b.Build(), kConf)).size(), 1u);
}

// A job placed earlier in the cycle must not reuse nodes that a later job's anti-affinity has
// since closed to it (the placer's shared candidate list would keep them).
TEST(PredicatesTest, LaterAntiAffinityClosesADomainToAnEarlierJob) {
  ClusterBuilder b;
  b.Node("x1").Resources("cpu=1,memory=4Gi").Label("zone", "x");
  b.Node("y1").Resources("cpu=2,memory=4Gi").Label("zone", "y");
  b.Node("y2").Resources("cpu=2,memory=4Gi").Label("zone", "y");
  b.Job("a").CreatedAt(1).MinAvailable(1).Tasks("w", 2, "cpu=1");
  b.Job("b").CreatedAt(2).Tasks("w", 1, "cpu=1", Spec([](PodSpec& p) {
                                  p.pod_anti_affinity_required = {Term({{"app", "a"}}, "zone")};
                                }));
  Snapshot s = b.Build();
  SetLabels(s, "a", {{"app", "a"}});
  auto binds = BindMap(Schedule(s, kConf));
  EXPECT_EQ(binds["a-w-0"], "x1");
  ASSERT_TRUE(binds.count("b-w-0"));
  EXPECT_EQ(binds["b-w-0"][0], 'y');
  EXPECT_FALSE(binds.count("a-w-1")) << "zone y holds b, which repels app=a: " << binds["a-w-1"];
}

}  // namespace
}  // namespace etna::sched
