// JobFlowController: Volcano's jobflow controller for flow.volcano.sh/v1alpha1 JobFlows. Each
// flow of a JobFlow names a JobTemplate; the controller makes a Volcano Job "<jobflow>-<flow>"
// of it (the template's spec, the createdByJobFlow/createdByJobTemplate labels and annotations,
// the JobFlow as controlling owner; a Normal "Created" Event) once the Job of every flow it
// dependsOn is Completed, at once for a flow with no targets. It writes the JobFlow's status
// from those Jobs (jobflow_status.h) and moves its phase Pending -> Running -> Succeed, or to
// Failed once a Job failed or was terminated; a Failed JobFlow is left as it is, as Volcano
// leaves it. With jobRetainPolicy delete, a Succeed JobFlow's Jobs are deleted (its status then
// stays as it was). A flow whose JobTemplate is missing, or whose Job the API refuses, gets a
// Warning "FailedCreate" Event on the JobFlow and waits: a JobTemplate's creation re-queues the
// JobFlows that name it, and the resync retries the rest.
// Thread-safety: as Controller.
#pragma once

#include <optional>
#include <vector>

#include "controllers/controller.h"

namespace etna::controllers {

using Json = nlohmann::json;

class JobFlowController : public Controller {
 public:
  explicit JobFlowController(ControllerOptions options);
  // Stops the informers before this class's members go (their handlers use them).
  ~JobFlowController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // The Volcano Jobs `jobflow` controls, in the order of its flows, then the others by name.
  std::vector<Json> OwnedJobs(const Json& jobflow) const;
  // Makes the Job of each flow whose dependencies are met and whose Job does not exist yet;
  // the Jobs made are appended to `jobs`.
  Status StartReadyFlows(const Json& jobflow, std::vector<Json>& jobs);
  // Makes the Job of flow `flow` from its JobTemplate; nullopt (with a Warning Event) when the
  // template is missing or the API refuses the Job.
  Result<std::optional<Json>> CreateFlowJob(const Json& jobflow, const std::string& flow);
  Status DeleteJobs(const std::vector<Json>& jobs);
  Status WriteStatus(const Json& jobflow, const std::vector<Json>& jobs);

  client::Informer* jobflows_;
  client::Informer* templates_;
  client::Informer* jobs_;
};

}  // namespace etna::controllers
