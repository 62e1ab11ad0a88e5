// JobTemplateController: Volcano's jobtemplate controller for flow.volcano.sh/v1alpha1
// JobTemplates. A JobTemplate makes nothing itself; this controller keeps its
// status.jobDependsOnList, the names of the Volcano Jobs JobFlows made from it (their
// createdByJobTemplate label), as Volcano does: a template none of whose Jobs is left keeps the
// list it had.
// Thread-safety: as Controller.
#pragma once

#include "controllers/controller.h"

namespace etna::controllers {

class JobTemplateController : public Controller {
 public:
  explicit JobTemplateController(ControllerOptions options);
  // Stops the informers before this class's members go (their handlers use them).
  ~JobTemplateController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  client::Informer* templates_;
  client::Informer* jobs_;
};

}  // namespace etna::controllers
