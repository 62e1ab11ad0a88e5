// Create, get, update, patch and delete through the REST engine.
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr const char* kQueues = "/apis/scheduling.volcano.sh/v1beta1/queues";
constexpr const char* kJobs = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs";
constexpr const char* kPods = "/api/v1/namespaces/default/pods";

json Queue(const std::string& name) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "Queue"},
          {"metadata", {{"name", name}}},
          {"spec", {{"weight", 2}}}};
}

json Pod(const std::string& name) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"labels", {{"app", "demo"}}}}},
      {"spec",
       {{"containers", {{{"name", "c"}, {"image", "busybox"}, {"command", {"sleep", "3600"}}}}}}}};
}

json Job(const std::string& name, int replicas, int min_available) {
  json task = {
      {"name", "worker"},
      {"replicas", replicas},
      {"template",
       {{"spec",
         {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}, {"restartPolicy", "Never"}}}}}};
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}}},
          {"spec", {{"minAvailable", min_available}, {"tasks", {task}}}}};
}

class CrudTest : public testing::ServerTest {};

TEST_F(CrudTest, CreateSetsServerMetadataAndGetReturnsIt) {
  json created = MustCreate(kQueues, Queue("q1"));
  EXPECT_FALSE(created["metadata"]["uid"].get<std::string>().empty());
  EXPECT_EQ(created["metadata"]["creationTimestamp"], "2027-01-15T08:00:00Z");
  EXPECT_EQ(created["status"]["state"], "Open");
  auto got = Do("GET", std::string(kQueues) + "/q1");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Json()["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  EXPECT_EQ(got.Json()["spec"]["weight"], 2);
}

// A Queue's state written in status (Volcano's QueueStatus, the seed's core-concepts and
// preemption files) is kept at create, as spec.state is; a spec.state wins over it.
TEST_F(CrudTest, QueueCreateKeepsTheStateWrittenInStatus) {
  json closed = Queue("closed-by-status");
  closed["status"] = {{"state", "Closed"}};
  json created = MustCreate(kQueues, closed);
  EXPECT_EQ(created["status"]["state"], "Closed");
  EXPECT_EQ(created["spec"]["state"], "Closed") << "what the queue controller keeps";
  json bad = Queue("bad-status");
  bad["status"] = {{"state", "Shut"}};
  auto refused = Do("POST", kQueues, bad.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("status.state"), std::string::npos) << refused.body;
  json both = Queue("spec-wins");
  both["spec"]["state"] = "Open";
  both["status"] = {{"state", "Closed"}};
  EXPECT_EQ(MustCreate(kQueues, both)["status"]["state"], "Open");
}

// A kind etna stores but runs no controller for is admitted with a Warning header that says so
// (kubectl prints it), so "created" is never read as "in force"; kinds etna acts on get none.
// dryRun=All: a create is admitted (defaults, refusals) and not written; other writes are refused
// rather than made.
TEST_F(CrudTest, DryRunCreatesNothing) {
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "dry"}, {"namespace", "default"}}},
             {"data", {{"a", "1"}}}};
  testing::Reply dry = Do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm.dump());
  ASSERT_EQ(dry.status, 201) << dry.body;
  EXPECT_FALSE(dry.Json()["metadata"].contains("resourceVersion"));
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/configmaps/dry").status, 404);
  json bad = cm;
  bad["metadata"]["name"] = "Not_A_Name";
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", bad.dump()).status, 422);
  MustCreate("/api/v1/namespaces/default/configmaps", cm);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm.dump()).status, 409);
  testing::Reply del = Do("DELETE", "/api/v1/namespaces/default/configmaps/dry?dryRun=All");
  EXPECT_EQ(del.status, 400);
  EXPECT_NE(del.body.find("nothing was written"), std::string::npos);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/configmaps/dry").status, 200);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/configmaps?dryRun=Some", cm.dump()).status, 400);
}

TEST_F(CrudTest, KindsEtnaActsOnCarryNoWarning) {
  json hpa = json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
             "minReplicas": 1, "maxReplicas": 3}})");
  testing::Reply created =
      Do("POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_TRUE(created.headers.empty());  // the HPA controller acts on it
  hpa["spec"]["maxReplicas"] = 4;
  testing::Reply updated =
      Do("PUT", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web", hpa.dump());
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_TRUE(updated.headers.empty());
  json deployment = json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})");
  testing::Reply deployed =
      Do("POST", "/apis/apps/v1/namespaces/default/deployments", deployment.dump());
  ASSERT_EQ(deployed.status, 201) << deployed.body;
  EXPECT_TRUE(deployed.headers.empty());
  testing::Reply queue = Do("POST", kQueues, Queue("q1").dump());
  ASSERT_EQ(queue.status, 201) << queue.body;
  EXPECT_TRUE(queue.headers.empty());
}

TEST_F(CrudTest, UnknownPriorityClassIsForbiddenAndAKnownOneSetsThePriority) {
  json pod = Pod("x");
  pod["spec"]["priorityClassName"] = "foo";
  auto refused = Do("POST", kPods, pod.dump());
  ASSERT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(refused.Json()["reason"], "Forbidden");
  EXPECT_EQ(refused.Json()["message"],
            "pods \"x\" is forbidden: no PriorityClass with name foo was found");
  pod["spec"]["priorityClassName"] = "high";  // bootstrapped: the seed's High = 100
  EXPECT_EQ(MustCreate(kPods, pod)["spec"]["priority"], 100);
}

// The namespace check of a create reads a cache; it sees a namespace's phase change and its
// deletion as soon as they are written.
TEST_F(CrudTest, CreateSeesItsNamespaceTerminatingAndThenGone) {
  MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "team"}}}});
  const std::string maps = "/api/v1/namespaces/team/configmaps";
  MustCreate(maps, {{"metadata", {{"name", "before"}}}});
  auto patched = Do("PATCH", "/api/v1/namespaces/team/status",
                    R"({"status":{"phase":"Terminating"}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  auto refused = Do("POST", maps, json{{"metadata", {{"name", "during"}}}}.dump());
  EXPECT_EQ(refused.status, 403) << refused.body;
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/team").status, 200);
  auto gone = Do("POST", maps, json{{"metadata", {{"name", "after"}}}}.dump());
  EXPECT_EQ(gone.status, 404) << gone.body;
}

// Admission reads the Queues from the server's cache in place (ObjectService::ForEach): a Job
// for a queue that has a child is refused naming the child, a Job for the child is taken.
TEST_F(CrudTest, JobsGoOnlyToLeafQueues) {
  MustCreate(kQueues, Queue("team"));
  json child = Queue("team-a");
  child["spec"]["parent"] = "team";
  MustCreate(kQueues, child);
  json job = Job("j1", 1, 1);
  job["spec"]["queue"] = "team";
  auto refused = Do("POST", kJobs, job.dump());
  EXPECT_EQ(refused.status, 422) << refused.body;
  EXPECT_NE(refused.body.find("queue `team` has child queue `team-a`"), std::string::npos)
      << refused.body;
  job["spec"]["queue"] = "team-a";
  EXPECT_EQ(Do("POST", kJobs, job.dump()).status, 201);
}

TEST_F(CrudTest, SecondCreateIsAlreadyExists) {
  MustCreate(kQueues, Queue("q1"));
  auto again = Do("POST", kQueues, Queue("q1").dump());
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.Json()["reason"], "AlreadyExists");
  EXPECT_EQ(again.Json()["message"], "queues.scheduling.volcano.sh \"q1\" already exists");
}

TEST_F(CrudTest, MissingObjectIsNotFoundWithKubectlMessage) {
  auto r = Do("GET", std::string(kJobs) + "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.Json()["message"], "jobs.batch.volcano.sh \"nope\" not found");
  EXPECT_EQ(r.Json()["details"]["group"], "batch.volcano.sh");
}

TEST_F(CrudTest, CreateInMissingNamespaceIsNotFound) {
  auto r = Do("POST", "/api/v1/namespaces/nope/pods", Pod("p").dump());
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.Json()["message"], "namespaces \"nope\" not found");
}

TEST_F(CrudTest, NamespaceMismatchIsBadRequest) {
  json pod = Pod("p");
  pod["metadata"]["namespace"] = "other";
  auto r = Do("POST", kPods, pod.dump());
  EXPECT_EQ(r.status, 400);
}

TEST_F(CrudTest, GenerateNameMakesAName) {
  json pod = Pod("");
  pod["metadata"].erase("name");
  pod["metadata"]["generateName"] = "web-";
  json created = MustCreate(kPods, pod);
  std::string name = created["metadata"]["name"];
  EXPECT_EQ(name.rfind("web-", 0), 0u);
  EXPECT_EQ(name.size(), 9u);
}

TEST_F(CrudTest, StaleResourceVersionOnUpdateIsConflict) {
  json created = MustCreate(kQueues, Queue("q1"));
  json first = created;
  first["spec"]["weight"] = 5;
  ASSERT_EQ(Do("PUT", std::string(kQueues) + "/q1", first.dump()).status, 200);
  json stale = created;  // still carries the first resourceVersion
  stale["spec"]["weight"] = 7;
  auto r = Do("PUT", std::string(kQueues) + "/q1", stale.dump());
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.Json()["reason"], "Conflict");
  EXPECT_EQ(Do("GET", std::string(kQueues) + "/q1").Json()["spec"]["weight"], 5);
}

TEST_F(CrudTest, UpdateIgnoresStatusAndStatusSubresourceIgnoresSpec) {
  json created = MustCreate(kQueues, Queue("q1"));
  json edit = created;
  edit["status"]["state"] = "Closed";
  edit["spec"]["weight"] = 3;
  json after = Do("PUT", std::string(kQueues) + "/q1", edit.dump()).Json();
  EXPECT_EQ(after["status"]["state"], "Open");
  EXPECT_EQ(after["spec"]["weight"], 3);
  EXPECT_EQ(after["metadata"]["generation"], 2);
  json status_edit = after;
  status_edit["status"]["state"] = "Closed";
  status_edit["spec"]["weight"] = 9;
  json closed = Do("PUT", std::string(kQueues) + "/q1/status", status_edit.dump()).Json();
  EXPECT_EQ(closed["status"]["state"], "Closed");
  EXPECT_EQ(closed["spec"]["weight"], 3);
}

TEST_F(CrudTest, NoOpMergePatchKeepsTheResourceVersion) {
  json created = MustCreate(kQueues, Queue("q1"));
  auto same = Do("PATCH", std::string(kQueues) + "/q1", R"({"spec":{"weight":2}})",
                 "application/merge-patch+json");
  ASSERT_EQ(same.status, 200) << same.body;
  EXPECT_EQ(same.Json()["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  auto changed = Do("PATCH", std::string(kQueues) + "/q1", R"({"spec":{"weight":4}})",
                    "application/merge-patch+json");
  EXPECT_NE(changed.Json()["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  EXPECT_EQ(changed.Json()["spec"]["weight"], 4);
}

TEST_F(CrudTest, JsonPatchAppliesAndFailedTestIsInvalid) {
  MustCreate(kQueues, Queue("q1"));
  auto ok =
      Do("PATCH", std::string(kQueues) + "/q1",
         R"([{"op":"replace","path":"/spec/weight","value":6}])", "application/json-patch+json");
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.Json()["spec"]["weight"], 6);
  auto failed =
      Do("PATCH", std::string(kQueues) + "/q1",
         R"([{"op":"test","path":"/spec/weight","value":1}])", "application/json-patch+json");
  EXPECT_EQ(failed.status, 422) << failed.body;
}

TEST_F(CrudTest, StrategicMergePatchIsRefusedForCustomResourcesAndMergesPods) {
  MustCreate(kQueues, Queue("q1"));
  auto refused = Do("PATCH", std::string(kQueues) + "/q1", R"({"spec":{"weight":3}})",
                    "application/strategic-merge-patch+json");
  EXPECT_EQ(refused.status, 415);
  MustCreate(kPods, Pod("p1"));
  // The shape kubectl apply sends for a changed image: the command must survive.
  auto merged = Do("PATCH", std::string(kPods) + "/p1",
                   R"({"spec":{"$setElementOrder/containers":[{"name":"c"}],)"
                   R"("containers":[{"image":"busybox:1.36","name":"c"}]}})",
                   "application/strategic-merge-patch+json");
  ASSERT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(merged.Json()["spec"]["containers"][0]["image"], "busybox:1.36");
  EXPECT_EQ(merged.Json()["spec"]["containers"][0]["command"][1], "3600");
  // Kubernetes' pod update rules still apply: the command may not change.
  auto command_change = Do("PATCH", std::string(kPods) + "/p1",
                           R"({"spec":{"containers":[{"command":["sleep","1"],"name":"c"}]}})",
                           "application/strategic-merge-patch+json");
  EXPECT_EQ(command_change.status, 422);
}

TEST_F(CrudTest, PatchWithStaleResourceVersionIsConflict) {
  MustCreate(kQueues, Queue("q1"));
  auto r = Do("PATCH", std::string(kQueues) + "/q1",
              R"({"metadata":{"resourceVersion":"1"},"spec":{"weight":3}})",
              "application/merge-patch+json");
  EXPECT_EQ(r.status, 409);
}

TEST_F(CrudTest, ApplyPatchCreatesWhenMissing) {
  auto r = Do("PATCH", std::string(kQueues) + "/q9?fieldManager=kubectl&force=false",
              Queue("q9").dump(), "application/apply-patch+yaml");
  ASSERT_TRUE(r.status == 200 || r.status == 201) << r.body;
  EXPECT_EQ(Do("GET", std::string(kQueues) + "/q9").status, 200);
}

TEST_F(CrudTest, StrictFieldValidationNamesUnknownFieldsAndWarnDropsThem) {
  json q = Queue("q1");
  q["spec"]["notInSchema"] = 1;
  auto strict = Do("POST", std::string(kQueues) + "?fieldValidation=Strict", q.dump());
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(strict.Json()["message"], "strict decoding error: unknown field \"spec.notInSchema\"");
  auto warn = Do("POST", kQueues, q.dump());
  ASSERT_EQ(warn.status, 201) << warn.body;
  EXPECT_FALSE(warn.Json()["spec"].contains("notInSchema"));
  EXPECT_EQ(Do("POST", std::string(kQueues) + "?fieldValidation=Loose", Queue("q2").dump()).status,
            400);
}

TEST_F(CrudTest, InvalidJobIsRejectedNamingTheField) {
  MustCreate(kQueues, Queue("q1"));
  json job = Job("j1", 2, 5);
  auto r = Do("POST", kJobs, job.dump());
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(r.Json()["reason"], "Invalid");
  EXPECT_EQ(r.Json()["details"]["causes"][0]["field"], "spec.minAvailable");
}

// The seed's offline-batch queue: "each job requests at least 1 GPU" (spec.minResources).
TEST_F(CrudTest, JobBelowItsQueuesMinResourcesIs422NamingQueueResourceAndAmounts) {
  json queue = Queue("offline-batch");
  queue["spec"]["minResources"] = {{"nvidia.com/gpu", 1}};
  MustCreate(kQueues, queue);
  json job = Job("cpu-only", 2, 2);
  job["spec"]["queue"] = "offline-batch";
  auto r = Do("POST", kJobs, job.dump());
  ASSERT_EQ(r.status, 422) << r.body;
  json cause = r.Json()["details"]["causes"][0];
  EXPECT_EQ(cause["field"], "spec.queue");
  EXPECT_EQ(cause["message"],
            "Forbidden: queue offline-batch requires each job to request at least 1 "
            "nvidia.com/gpu (minResources); this job requests 0");
  EXPECT_NE(r.Json()["message"].get<std::string>().find("queue offline-batch requires"),
            std::string::npos)
      << r.body;
}

TEST_F(CrudTest, MalformedAndDeepBodiesAreBadRequests) {
  EXPECT_EQ(Do("POST", kQueues, "{\"metadata\":").status, 400);
  EXPECT_EQ(Do("POST", kQueues, std::string(5000, '[') + std::string(5000, ']')).status, 400);
  EXPECT_EQ(Do("POST", kQueues, "").status, 400);
  EXPECT_EQ(Do("POST", kQueues, "a: [", "application/yaml").status, 400);
}

TEST_F(CrudTest, DeleteReturnsTheObjectAndThenItIsGone) {
  MustCreate(kQueues, Queue("q1"));
  auto r = Do("DELETE", std::string(kQueues) + "/q1", R"({"propagationPolicy":"Background"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["metadata"]["name"], "q1");
  EXPECT_EQ(Do("GET", std::string(kQueues) + "/q1").status, 404);
  EXPECT_EQ(Do("DELETE", std::string(kQueues) + "/q1").status, 404);
}

TEST_F(CrudTest, DeleteCascadesToOwnedObjectsUnlessOrphaned) {
  MustCreate(kQueues, Queue("q1"));
  json job = MustCreate(kJobs, Job("j1", 1, 1));
  json owner = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
                {"kind", "Job"},
                {"name", "j1"},
                {"uid", job["metadata"]["uid"]},
                {"controller", true}};
  json owned = Pod("j1-worker-0");
  owned["metadata"]["ownerReferences"] = {owner};
  MustCreate(kPods, owned);
  json kept = Pod("j1-worker-1");
  kept["metadata"]["ownerReferences"] = {owner};
  ASSERT_EQ(Do("DELETE", std::string(kJobs) + "/j1").status, 200);
  EXPECT_EQ(Do("GET", std::string(kPods) + "/j1-worker-0").status, 404);

  json job2 = MustCreate(kJobs, Job("j2", 1, 1));
  kept["metadata"]["ownerReferences"][0]["uid"] = job2["metadata"]["uid"];
  MustCreate(kPods, kept);
  ASSERT_EQ(Do("DELETE", std::string(kJobs) + "/j2?propagationPolicy=Orphan").status, 200);
  auto orphan = Do("GET", std::string(kPods) + "/j1-worker-1");
  ASSERT_EQ(orphan.status, 200);
  EXPECT_FALSE(orphan.Json()["metadata"].contains("ownerReferences"));
}

TEST_F(CrudTest, OwnersAreIndexedAgainAfterARestart) {
  MustCreate(kQueues, Queue("q1"));
  json job = MustCreate(kJobs, Job("j1", 1, 1));
  json owned = Pod("j1-worker-0");
  owned["metadata"]["ownerReferences"] = {{{"apiVersion", "batch.volcano.sh/v1alpha1"},
                                           {"kind", "Job"},
                                           {"name", "j1"},
                                           {"uid", job["metadata"]["uid"]}}};
  MustCreate(kPods, owned);
  // A new server over the same store (a restart) finds the dependents of j1.
  ApiServerOptions options;
  options.authenticator = &authn_;
  options.authorizer = &authz_;
  options.clock = &clock_;
  server_ = std::make_unique<ApiServer>(&store_, options);
  ASSERT_TRUE(server_->Bootstrap().ok());
  ASSERT_EQ(Do("DELETE", std::string(kJobs) + "/j1").status, 200);
  EXPECT_EQ(Do("GET", std::string(kPods) + "/j1-worker-0").status, 404);
}

TEST_F(CrudTest, BoundPodIsDeletedGracefully) {
  json pod = Pod("p1");
  pod["spec"]["nodeName"] = "n1";
  MustCreate(kPods, pod);
  auto first = Do("DELETE", std::string(kPods) + "/p1");
  ASSERT_EQ(first.status, 200);
  EXPECT_TRUE(first.Json()["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(Do("GET", std::string(kPods) + "/p1").status, 200);
  ASSERT_EQ(Do("DELETE", std::string(kPods) + "/p1?gracePeriodSeconds=0").status, 200);
  EXPECT_EQ(Do("GET", std::string(kPods) + "/p1").status, 404);
}

TEST_F(CrudTest, FinalizersHoldDeletionUntilRemoved) {
  json q = Queue("q1");
  q["metadata"]["finalizers"] = {"etna.io/test"};
  MustCreate(kQueues, q);
  ASSERT_EQ(Do("DELETE", std::string(kQueues) + "/q1").status, 200);
  auto held = Do("GET", std::string(kQueues) + "/q1");
  ASSERT_EQ(held.status, 200);
  EXPECT_TRUE(held.Json()["metadata"].contains("deletionTimestamp"));
  auto r = Do("PATCH", std::string(kQueues) + "/q1", R"({"metadata":{"finalizers":null}})",
              "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Do("GET", std::string(kQueues) + "/q1").status, 404);
}

TEST_F(CrudTest, DefaultNamespaceCannotBeDeleted) {
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default").status, 403);
}

TEST_F(CrudTest, DeletingANamespaceDeletesItsObjects) {
  MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "team-a"}}}});
  MustCreate("/api/v1/namespaces/team-a/pods", Pod("p1"));
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/team-a").status, 200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods/p1").status, 404);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a").status, 404);
}

TEST_F(CrudTest, NotUtf8NamesInTheUrlGetAStatusNotAnError) {
  auto r = Do("GET", std::string(kQueues) + "/bad%FFname");
  EXPECT_EQ(r.status, 404);
  EXPECT_FALSE(r.Json().is_discarded());
}

TEST_F(CrudTest, UnknownPathsAreNotFound) {
  EXPECT_EQ(Do("GET", "/apis/nope.io/v1/things").status, 404);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/queues").status, 404);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p1/exec").status, 404);
}

TEST_F(CrudTest, BootstrapMakesTheStartingNamespacesQueuesAndPriorityClasses) {
  for (const char* ns : {"default", "kube-node-lease", "volcano-system"}) {
    EXPECT_EQ(Do("GET", std::string("/api/v1/namespaces/") + ns).status, 200) << ns;
  }
  EXPECT_EQ(Do("GET", "/apis/scheduling.volcano.sh/v1beta1/queues/default").status, 200);
  for (const auto& [name, value] : {std::pair{"high", 100}, {"normal", 50}, {"low", 10}}) {
    auto r = Do("GET", std::string("/apis/scheduling.k8s.io/v1/priorityclasses/") + name);
    ASSERT_EQ(r.status, 200) << name;
    EXPECT_EQ(r.Json()["value"], value) << name;
  }
  // A second bootstrap (a restart) keeps them and succeeds.
  EXPECT_TRUE(server_->Bootstrap().ok());
}

// kubectl scale and the HorizontalPodAutoscaler read and write spec.replicas through the scale
// subresource (autoscaling/v1 Scale) of Deployments and ReplicaSets.
TEST_F(CrudTest, ScaleSubresourceReadsAndWritesReplicas) {
  for (std::string kind : {"Deployment", "ReplicaSet"}) {
    std::string plural = kind == "Deployment" ? "deployments" : "replicasets";
    std::string base = "/apis/apps/v1/namespaces/default/" + plural;
    json object = json::parse(R"({
      "apiVersion": "apps/v1", "metadata": {"name": "web"},
      "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
               "template": {"metadata": {"labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})");
    object["kind"] = kind;
    ASSERT_EQ(Do("POST", base, object.dump()).status, 201);
    testing::Reply got = Do("GET", base + "/web/scale");
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(got.Json()["kind"], "Scale");
    EXPECT_EQ(got.Json()["apiVersion"], "autoscaling/v1");
    EXPECT_EQ(got.Json()["spec"]["replicas"], 2);
    EXPECT_EQ(got.Json()["status"]["selector"], "app=web");
    testing::Reply patched = Do("PATCH", base + "/web/scale", R"({"spec":{"replicas":5}})",
                                "application/merge-patch+json");
    ASSERT_EQ(patched.status, 200) << patched.body;
    EXPECT_EQ(patched.Json()["spec"]["replicas"], 5);
    EXPECT_EQ(Do("GET", base + "/web").Json()["spec"]["replicas"], 5);
    json scale = Do("GET", base + "/web/scale").Json();
    scale["spec"]["replicas"] = 1;
    testing::Reply put = Do("PUT", base + "/web/scale", scale.dump());
    ASSERT_EQ(put.status, 200) << put.body;
    EXPECT_EQ(Do("GET", base + "/web").Json()["spec"]["replicas"], 1);
    // A stale resourceVersion is a conflict; a negative count names the field.
    EXPECT_EQ(Do("PUT", base + "/web/scale", scale.dump()).status, 409);
    scale = Do("GET", base + "/web/scale").Json();
    scale["spec"]["replicas"] = -1;
    testing::Reply negative = Do("PUT", base + "/web/scale", scale.dump());
    EXPECT_EQ(negative.status, 422);
    EXPECT_NE(negative.body.find("spec.replicas"), std::string::npos) << negative.body;
    EXPECT_EQ(Do("DELETE", base + "/web/scale").status, 405);
  }
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/x/scale").status, 404);
}

}  // namespace
}  // namespace etna::api::server
