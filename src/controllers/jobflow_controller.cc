#include "controllers/jobflow_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/types/job.h"
#include "common/time.h"
#include "controllers/job_pods.h"
#include "controllers/jobflow_status.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

constexpr char kJobFlowApiVersion[] = "flow.volcano.sh/v1alpha1";

client::ObjectRef RefOf(const Json& jobflow) {
  types::ObjectView v(jobflow);
  return {"JobFlow", kJobFlowApiVersion, v.ns(), v.name(), v.uid()};
}

// The JobTemplate names of `jobflow`'s flows, in order ("" for an unnamed one).
std::vector<std::string> FlowNames(const Json& jobflow) {
  std::vector<std::string> out;
  for (const Json& flow : types::Array(jobflow, {"spec", "flows"})) {
    out.push_back(types::String(flow, {"name"}));
  }
  return out;
}

}  // namespace

JobFlowController::JobFlowController(ControllerOptions options)
    : Controller("jobflow-controller", std::move(options)) {
  jobflows_ = Watch(client::Path("jobflows"));
  // A JobTemplate made (or changed) after the JobFlows that name it: they may start it now.
  templates_ = Watch(client::Path("jobtemplates"), [this](const std::string&, const Json& tmpl) {
    types::ObjectView t(tmpl);
    jobflows_->ForEachInNamespace(t.ns(), [&](const Json& jobflow) {
      std::vector<std::string> names = FlowNames(jobflow);
      if (std::find(names.begin(), names.end(), t.name()) != names.end()) {
        queue().Add(KeyOf(jobflow));
      }
    });
  });
  jobs_ = Watch(client::Path("jobs.batch.volcano.sh"), [this](const std::string&, const Json& job) {
    types::ObjectView j(job);
    std::string owner = j.ControllerName("JobFlow");
    if (!owner.empty()) queue().Add(j.ns() + "/" + owner);
  });
}

Status JobFlowController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  std::optional<Json> jobflow = jobflows_->Get(ns, name);
  if (!jobflow || types::ObjectView(*jobflow).IsDeleting()) return Status::Ok();
  std::string phase = types::String(*jobflow, {"status", "state", "phase"});
  // Volcano's Failed and Terminating states do nothing, not even the status.
  if (phase == "Failed" || phase == "Terminating") return Status::Ok();
  std::vector<Json> jobs = OwnedJobs(*jobflow);
  if (phase == "Succeed" && types::String(*jobflow, {"spec", "jobRetainPolicy"}) == "delete") {
    return DeleteJobs(jobs);
  }
  ETNA_RETURN_IF_ERROR(StartReadyFlows(*jobflow, jobs));
  return WriteStatus(*jobflow, jobs);
}

std::vector<Json> JobFlowController::OwnedJobs(const Json& jobflow) const {
  types::ObjectView flow(jobflow);
  std::vector<Json> owned;
  jobs_->ForEachInNamespace(flow.ns(), [&](const Json& job) {
    if (types::ObjectView(job).ControllerUid() == flow.uid()) owned.push_back(job);
  });
  std::vector<std::string> order;
  for (const std::string& f : FlowNames(jobflow)) order.push_back(FlowJobName(flow.name(), f));
  auto rank = [&](const Json& job) {
    auto it = std::find(order.begin(), order.end(), types::ObjectView(job).name());
    return std::make_pair(it - order.begin(), types::ObjectView(job).name());
  };
  std::sort(owned.begin(), owned.end(),
            [&](const Json& a, const Json& b) { return rank(a) < rank(b); });
  return owned;
}

Status JobFlowController::StartReadyFlows(const Json& jobflow, std::vector<Json>& jobs) {
  types::ObjectView flow_view(jobflow);
  auto job_phase = [&](const std::string& job_name) -> std::optional<std::string> {
    for (const Json& j : jobs) {
      if (types::ObjectView(j).name() == job_name) return types::Job(j).phase();
    }
    auto cached = jobs_->Get(flow_view.ns(), job_name);
    if (!cached) return std::nullopt;
    return types::Job(*cached).phase();
  };
  for (const Json& flow : types::Array(jobflow, {"spec", "flows"})) {
    std::string name = types::String(flow, {"name"});
    if (name.empty() || job_phase(FlowJobName(flow_view.name(), name))) continue;
    bool ready = true;
    for (const Json& target : types::Array(flow, {"dependsOn", "targets"})) {
      std::string t = target.is_string() ? target.get<std::string>() : "";
      ready = ready && job_phase(FlowJobName(flow_view.name(), t)) == "Completed";
    }
    if (!ready) continue;
    auto made = CreateFlowJob(jobflow, name);
    if (!made.ok()) return made.status();
    if (*made) jobs.push_back(std::move(**made));
  }
  return Status::Ok();
}

Result<std::optional<Json>> JobFlowController::CreateFlowJob(const Json& jobflow,
                                                             const std::string& flow) {
  types::ObjectView v(jobflow);
  std::string job_name = FlowJobName(v.name(), flow);
  std::optional<Json> tmpl = templates_->Get(v.ns(), flow);
  if (!tmpl) {
    events().Record(
        RefOf(jobflow), "Warning", "FailedCreate",
        fmt::format("JobTemplate {} not found: Job {} is made once it exists", flow, job_name));
    return std::optional<Json>();
  }
  Json marks = {{kCreatedByJobTemplate, CreatedByValue(v.ns(), flow)},
                {kCreatedByJobFlow, CreatedByValue(v.ns(), v.name())}};
  Json job = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", job_name},
                {"namespace", v.ns()},
                {"labels", marks},
                {"annotations", marks},
                {"ownerReferences", {ControllerRef(jobflow)}}}},
              {"spec", types::Object(*tmpl, {"spec"})}};
  auto made = rest().Create(client::Path("jobs.batch.volcano.sh", v.ns()), job);
  if (made.ok()) {
    events().Record(RefOf(jobflow), "Normal", "Created",
                    fmt::format("Created Job {} from JobTemplate {}", job_name, flow));
    return std::optional<Json>(std::move(*made));
  }
  StatusCode code = made.status().code();
  if (code == StatusCode::kAlreadyExists) return std::optional<Json>();  // the cache lags
  if (code == StatusCode::kInvalidArgument || code == StatusCode::kFailedPrecondition) {
    // Refused by admission (a closed queue, an unknown priority class): retrying at once would
    // not help; the resync tries again.
    events().Record(RefOf(jobflow), "Warning", "FailedCreate",
                    fmt::format("Error creating Job {} from JobTemplate {}: {}", job_name, flow,
                                made.status().message()));
    return std::optional<Json>();
  }
  return made.status();
}

Status JobFlowController::DeleteJobs(const std::vector<Json>& jobs) {
  for (const Json& job : jobs) {
    types::ObjectView j(job);
    if (j.IsDeleting()) continue;
    Status s =
        rest().Delete(client::Path("jobs.batch.volcano.sh", j.ns(), j.name()), -1, "Background");
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

Status JobFlowController::WriteStatus(const Json& jobflow, const std::vector<Json>& jobs) {
  const Json& old_status = types::Object(jobflow, {"status"});
  Json status = BuildJobFlowStatus(old_status, jobs, FormatRfc3339(clock().NowMs()));
  status["state"]["phase"] =
      NextJobFlowPhase(types::String(jobflow, {"status", "state", "phase"}), status,
                       types::Array(jobflow, {"spec", "flows"}).size());
  if (status == old_status) return Status::Ok();
  Json updated = jobflow;
  updated["status"] = std::move(status);
  types::ObjectView v(jobflow);
  auto written = rest().UpdateStatus(client::Path("jobflows", v.ns(), v.name()), updated);
  return written.ok() ? Status::Ok() : written.status();
}

}  // namespace etna::controllers
