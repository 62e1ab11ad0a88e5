#include "api/resources/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace etna::api::resources {
namespace {

const ResourceRegistry& R() { return ResourceRegistry::Default(); }

struct Expected {
  std::string group, version, plural, kind, store;
  bool namespaced, has_status, built_in;
};

class RegistryFindTest : public testing::TestWithParam<Expected> {};

TEST_P(RegistryFindTest, FindsByPluralAndKind) {
  const Expected& e = GetParam();
  const ResourceInfo* r = R().Find(e.group, e.version, e.plural);
  ASSERT_NE(r, nullptr) << e.plural;
  EXPECT_EQ(r->kind, e.kind);
  EXPECT_EQ(r->StoreResource(), e.store);
  EXPECT_EQ(r->QualifiedPlural(), e.store);
  EXPECT_EQ(r->namespaced, e.namespaced);
  EXPECT_EQ(r->has_status, e.has_status);
  EXPECT_EQ(r->built_in, e.built_in);
  EXPECT_EQ(R().FindKind(r->GroupVersion(), e.kind), r);
  EXPECT_EQ(r->ListKind(), e.kind + "List");
  ASSERT_FALSE(r->columns.empty());
  EXPECT_EQ(r->verbs.size(), 8u);
}

INSTANTIATE_TEST_SUITE_P(
    All, RegistryFindTest,
    testing::Values(
        Expected{"", "v1", "namespaces", "Namespace", "namespaces", false, true, true},
        Expected{"", "v1", "nodes", "Node", "nodes", false, true, true},
        Expected{"", "v1", "pods", "Pod", "pods", true, true, true},
        Expected{"", "v1", "events", "Event", "events", true, false, true},
        Expected{"", "v1", "configmaps", "ConfigMap", "configmaps", true, false, true},
        Expected{"", "v1", "secrets", "Secret", "secrets", true, false, true},
        Expected{"coordination.k8s.io", "v1", "leases", "Lease", "leases.coordination.k8s.io", true,
                 false, true},
        Expected{"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass",
                 "priorityclasses.scheduling.k8s.io", false, false, true},
        Expected{"apps", "v1", "deployments", "Deployment", "deployments.apps", true, true, true},
        Expected{"autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler",
                 "horizontalpodautoscalers.autoscaling", true, true, true},
        Expected{"batch.volcano.sh", "v1alpha1", "jobs", "Job", "jobs.batch.volcano.sh", true, true,
                 false},
        Expected{"scheduling.volcano.sh", "v1beta1", "queues", "Queue",
                 "queues.scheduling.volcano.sh", false, true, false},
        Expected{"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup",
                 "podgroups.scheduling.volcano.sh", true, true, false},
        Expected{"volcano.sh", "v1beta1", "queuebindings", "QueueBinding",
                 "queuebindings.volcano.sh", false, false, false},
        Expected{"bus.volcano.sh", "v1alpha1", "commands", "Command", "commands.bus.volcano.sh",
                 true, false, false},
        Expected{"topology.volcano.sh", "v1alpha1", "hypernodes", "HyperNode",
                 "hypernodes.topology.volcano.sh", false, true, false}));

TEST(RegistryTest, UnknownLookupsReturnNull) {
  EXPECT_EQ(R().Find("", "v1", "jobs"), nullptr);
  EXPECT_EQ(R().Find("batch.volcano.sh", "v1beta1", "jobs"), nullptr);
  EXPECT_EQ(R().Find("", "v1", "Pods"), nullptr);
  EXPECT_EQ(R().FindKind("batch/v1beta1", "CronJob"), nullptr);
  EXPECT_EQ(R().FindKind("scheduling.volcano.sh/v1beta1", "QueueBinding"), nullptr);
  EXPECT_EQ(R().FindByName("foo"), nullptr);
  EXPECT_EQ(R().FindByName("pods.apps"), nullptr);
}

TEST(RegistryTest, FindByNameAcceptsShortNamesKindsAndQualifiedNames) {
  struct Case {
    const char* name;
    const char* kind;
  };
  for (const Case& c : {Case{"po", "Pod"},
                        Case{"pod", "Pod"},
                        Case{"Pod", "Pod"},
                        Case{"ns", "Namespace"},
                        Case{"no", "Node"},
                        Case{"ev", "Event"},
                        Case{"cm", "ConfigMap"},
                        Case{"pc", "PriorityClass"},
                        Case{"deploy", "Deployment"},
                        Case{"hpa", "HorizontalPodAutoscaler"},
                        Case{"vcjob", "Job"},
                        Case{"vj", "Job"},
                        Case{"job", "Job"},
                        Case{"jobs.batch.volcano.sh", "Job"},
                        Case{"q", "Queue"},
                        Case{"queue-v1beta1", "Queue"},
                        Case{"pg", "PodGroup"},
                        Case{"podgroup-v1beta1", "PodGroup"},
                        Case{"hn", "HyperNode"},
                        Case{"commands", "Command"},
                        Case{"qb", "QueueBinding"},
                        Case{"leases.coordination.k8s.io", "Lease"}}) {
    const ResourceInfo* r = R().FindByName(c.name);
    ASSERT_NE(r, nullptr) << c.name;
    EXPECT_EQ(r->kind, c.kind) << c.name;
  }
}

TEST(RegistryTest, ShortNamesAreUnique) {
  std::set<std::string> seen;
  for (const ResourceInfo& r : R().All()) {
    for (const std::string& s : r.short_names) EXPECT_TRUE(seen.insert(s).second) << s;
  }
}

TEST(RegistryTest, GroupsInOrderWithoutCore) {
  EXPECT_EQ(R().Groups(), (std::vector<std::string>{"coordination.k8s.io",
                                                    "scheduling.k8s.io",
                                                    "apps",
                                                    "autoscaling",
                                                    "batch",
                                                    "discovery.k8s.io",
                                                    "rbac.authorization.k8s.io",
                                                    "authorization.k8s.io",
                                                    "authentication.k8s.io",
                                                    "batch.volcano.sh",
                                                    "scheduling.volcano.sh",
                                                    "volcano.sh",
                                                    "bus.volcano.sh",
                                                    "topology.volcano.sh",
                                                    "flow.volcano.sh",
                                                    "keda.sh",
                                                    "metrics.k8s.io",
                                                    "custom.metrics.k8s.io",
                                                    "external.metrics.k8s.io",
                                                    "accounting.etna.io"}));
}

TEST(RegistryTest, GroupVersionAndSubresources) {
  const ResourceInfo* pod = R().Find("", "v1", "pods");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->GroupVersion(), "v1");
  EXPECT_EQ(pod->subresources, (std::vector<std::string>{"log", "binding", "eviction", "exec",
                                                         "attach", "portforward"}));
  EXPECT_EQ(pod->categories, (std::vector<std::string>{"all"}));
  EXPECT_EQ(pod->short_names, (std::vector<std::string>{"po"}));
  const ResourceInfo* job = R().Find("batch.volcano.sh", "v1alpha1", "jobs");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->GroupVersion(), "batch.volcano.sh/v1alpha1");
  EXPECT_EQ(job->singular, "job");
  EXPECT_TRUE(job->subresources.empty());
}

TEST(RegistryTest, ColumnsStartWithNameExceptEvents) {
  for (const ResourceInfo& r : R().All()) {
    if (r.kind == "Event") {
      EXPECT_EQ(r.columns.front().name, "Last Seen");
      EXPECT_EQ(r.columns.back().format, "name");
      EXPECT_EQ(r.columns.back().priority, 1);
      continue;
    }
    EXPECT_EQ(r.columns.front().name, "Name") << r.kind;
    EXPECT_EQ(r.columns.front().format, "name") << r.kind;
    // Built-in printers compute their cells; CRD columns read a JSON path.
    for (size_t i = 1; i < r.columns.size(); ++i) {
      EXPECT_EQ(r.columns[i].json_path.empty(), r.built_in) << r.kind << " " << r.columns[i].name;
    }
  }
}

TEST(RegistryTest, VolcanoColumnsMatchTheirCrds) {
  auto names = [](const ResourceInfo* r) {
    std::vector<std::string> out;
    for (const PrinterColumn& c : r->columns) out.push_back(c.name);
    return out;
  };
  const ResourceInfo* job = R().Find("batch.volcano.sh", "v1alpha1", "jobs");
  EXPECT_EQ(names(job), (std::vector<std::string>{"Name", "STATUS", "minAvailable", "RUNNINGS",
                                                  "AGE", "QUEUE"}));
  EXPECT_EQ(job->columns[1].json_path, ".status.state.phase");
  EXPECT_EQ(job->columns[5].priority, 1);
  EXPECT_EQ(names(R().Find("scheduling.volcano.sh", "v1beta1", "queues")),
            (std::vector<std::string>{"Name", "PARENT"}));
  EXPECT_EQ(names(R().Find("scheduling.volcano.sh", "v1beta1", "podgroups")),
            (std::vector<std::string>{"Name", "STATUS", "minMember", "RUNNINGS", "AGE", "QUEUE"}));
  EXPECT_EQ(names(R().Find("topology.volcano.sh", "v1alpha1", "hypernodes")),
            (std::vector<std::string>{"Name", "Tier", "TierName", "NodeCount", "Age"}));
  EXPECT_EQ(names(R().Find("", "v1", "pods")),
            (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                      "Nominated Node", "Readiness Gates"}));
}

TEST(RegistryTest, FieldSelectors) {
  auto has = [](const ResourceInfo* r, const std::string& f) {
    for (const std::string& s : r->field_selectors) {
      if (s == f) return true;
    }
    return false;
  };
  const ResourceInfo* pods = R().Find("", "v1", "pods");
  EXPECT_TRUE(has(pods, "spec.nodeName"));
  EXPECT_TRUE(has(pods, "status.phase"));
  EXPECT_TRUE(has(pods, "spec.schedulerName"));
  const ResourceInfo* events = R().Find("", "v1", "events");
  for (const char* f :
       {"involvedObject.name", "involvedObject.namespace", "involvedObject.kind",
        "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "type", "source"}) {
    EXPECT_TRUE(has(events, f)) << f;
  }
  EXPECT_TRUE(has(R().Find("batch.volcano.sh", "v1alpha1", "jobs"), "status.state.phase"));
  EXPECT_TRUE(has(R().Find("scheduling.volcano.sh", "v1beta1", "podgroups"), "spec.queue"));
  EXPECT_TRUE(has(R().Find("", "v1", "nodes"), "spec.unschedulable"));
  EXPECT_TRUE(has(R().Find("", "v1", "namespaces"), "status.phase"));
  EXPECT_FALSE(has(pods, "spec.queue"));
}

}  // namespace
}  // namespace etna::api::resources
