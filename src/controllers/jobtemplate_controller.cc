#include "controllers/jobtemplate_controller.h"

#include <algorithm>

#include "api/types/object.h"
#include "controllers/jobflow_status.h"

namespace etna::controllers {

namespace types = etna::api::types;
using Json = nlohmann::json;

JobTemplateController::JobTemplateController(ControllerOptions options)
    : Controller("jobtemplate-controller", std::move(options)) {
  templates_ = Watch(client::Path("jobtemplates"));
  // A JobFlow makes its Jobs in its own namespace, the template's: the label is
  // "<namespace>.<template>".
  jobs_ = Watch(client::Path("jobs.batch.volcano.sh"), [this](const std::string&, const Json& job) {
    types::ObjectView j(job);
    std::string made_from = j.Label(kCreatedByJobTemplate);
    std::string prefix = CreatedByValue(j.ns(), "");
    if (made_from.size() > prefix.size() && made_from.rfind(prefix, 0) == 0) {
      queue().Add(j.ns() + "/" + made_from.substr(prefix.size()));
    }
  });
}

Status JobTemplateController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  std::optional<Json> tmpl = templates_->Get(ns, name);
  if (!tmpl) return Status::Ok();
  std::string made_from = CreatedByValue(ns, name);
  Json names = Json::array();
  jobs_->ForEachInNamespace(ns, [&](const Json& job) {
    types::ObjectView j(job);
    if (j.Label(kCreatedByJobTemplate) == made_from) names.push_back(j.name());
  });
  if (names.empty()) return Status::Ok();
  std::sort(names.begin(), names.end());
  if (types::Object(*tmpl, {"status"}).value("jobDependsOnList", Json()) == names) {
    return Status::Ok();
  }
  auto patched = rest().MergePatch(client::Path("jobtemplates", ns, name),
                                   {{"status", {{"jobDependsOnList", names}}}}, "status");
  return patched.ok() ? Status::Ok() : patched.status();
}

}  // namespace etna::controllers
