#include "controllers/endpoints_controller.h"

#include <set>

#include "api/types/service.h"
#include "controllers/endpoints.h"

namespace etna::controllers {

namespace types = etna::api::types;
using Json = nlohmann::json;

EndpointsController::EndpointsController(ControllerOptions options)
    : Controller("endpoints", std::move(options)) {
  services_ = Watch(client::Path("services"));
  pods_ =
      Watch(client::Path("pods"), [this](const std::string&, const Json& pod) { PodChanged(pod); });
  auto by_name = [this](const std::string&, const Json& object) { queue().Add(KeyOf(object)); };
  endpoints_ = Watch(client::Path("endpoints"), by_name);
  slices_ = Watch(client::Path("endpointslices"), [this](const std::string&, const Json& slice) {
    std::string service = types::ObjectView(slice).Label(kServiceNameLabel);
    if (!service.empty()) queue().Add(types::ObjectView(slice).ns() + "/" + service);
  });
}

void EndpointsController::PodChanged(const Json& pod) {
  services_->ForEachInNamespace(types::ObjectView(pod).ns(), [&](const Json& service) {
    if (types::Service(service).has_selector()) queue().Add(KeyOf(service));
  });
}

Status EndpointsController::Apply(const std::string& resource, const std::optional<Json>& have,
                                  const Json& want, const std::vector<const char*>& fields) {
  types::ObjectView view(want);
  if (!have) {
    auto made = rest().Create(client::Path(resource, view.ns()), want);
    return made.ok() || made.status().code() == StatusCode::kAlreadyExists ? Status::Ok()
                                                                           : made.status();
  }
  bool same = true;
  for (const char* field : fields) same = same && have->value(field, Json()) == want[field];
  for (const char* meta : {"labels", "annotations", "ownerReferences"}) {
    if (want["metadata"].contains(meta)) {
      same = same && have->value("/metadata"_json_pointer, Json::object()).value(meta, Json()) ==
                         want["metadata"][meta];
    }
  }
  if (same) return Status::Ok();
  Json updated = *have;
  for (const char* field : fields) updated[field] = want[field];
  for (const char* meta : {"labels", "annotations", "ownerReferences"}) {
    if (want["metadata"].contains(meta)) updated["metadata"][meta] = want["metadata"][meta];
  }
  return rest().Update(client::Path(resource, view.ns(), view.name()), updated).status();
}

Status EndpointsController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto service = services_->Get(ns, name);
  auto endpoints = endpoints_->Get(ns, name);
  std::set<std::string> wanted_slices;
  if (service && types::Service(*service).has_selector()) {
    std::vector<Json> pods;
    pods_->ForEachInNamespace(ns, [&](const Json& pod) { pods.push_back(pod); });
    ServiceEndpoints want = BuildServiceEndpoints(*service, pods);
    ETNA_RETURN_IF_ERROR(Apply("endpoints", endpoints, want.endpoints, {"subsets"}));
    for (const Json& slice : want.slices) {
      std::string slice_name = types::ObjectView(slice).name();
      wanted_slices.insert(slice_name);
      ETNA_RETURN_IF_ERROR(Apply("endpointslices", slices_->Get(ns, slice_name), slice,
                                 {"addressType", "endpoints", "ports"}));
    }
  } else if (endpoints &&
             types::ObjectView(*endpoints).HasAnnotation(kEndpointsManagedAnnotation)) {
    Status gone = rest().Delete(client::Path("endpoints", ns, name));
    if (!gone.ok() && gone.code() != StatusCode::kNotFound) return gone;
  }
  std::vector<std::string> stale;
  slices_->ForEachInNamespace(ns, [&](const Json& slice) {
    types::ObjectView view(slice);
    if (view.Label(kServiceNameLabel) == name &&
        view.Label(kManagedByLabel) == kEndpointSliceManager && !wanted_slices.count(view.name())) {
      stale.push_back(view.name());
    }
  });
  for (const std::string& slice : stale) {
    Status gone = rest().Delete(client::Path("endpointslices", ns, slice));
    if (!gone.ok() && gone.code() != StatusCode::kNotFound) return gone;
  }
  return Status::Ok();
}

}  // namespace etna::controllers
