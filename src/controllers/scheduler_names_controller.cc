#include "controllers/scheduler_names_controller.h"

#include <fmt/format.h>

#include <set>

#include "api/types/pod.h"
#include "api/types/well_known.h"
#include "client/lease.h"
#include "common/strings.h"
#include "common/time.h"

namespace etna::controllers {

namespace types = etna::api::types;
using Json = nlohmann::json;

namespace {

constexpr TimeMs kGraceMs = 15'000;  // a scheduler just starting has time to say so
constexpr TimeMs kRepeatMs = 60'000;

bool Waiting(const Json& pod) {
  types::Pod p(pod);
  return p.node_name().empty() && !p.IsTerminal() && !p.IsDeleting();
}

}  // namespace

SchedulerNamesController::SchedulerNamesController(ControllerOptions options)
    : Controller("scheduler-names", std::move(options)) {
  pods_ = Watch(client::Path("pods"), [this](const std::string& type, const Json& pod) {
    // Once per pod (its schedulerName cannot change); the check itself waits out the grace.
    if (type == "ADDED" && Waiting(pod)) queue().Add(KeyOf(pod));
  });
  leases_ = Watch(client::Path("leases", api::types::kSchedulerLeaseNamespace),
                  [](const std::string&, const Json&) {});
}

Status SchedulerNamesController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto found = pods_->Get(ns, name);
  if (!found || !Waiting(*found)) return Status::Ok();
  types::Pod pod(*found);
  const TimeMs now = clock().NowMs();
  const TimeMs created = ParseRfc3339(pod.creation_timestamp()).value_or(now);
  if (now < created + kGraceMs) {
    queue().AddAt(key, created + kGraceMs);
    return Status::Ok();
  }
  std::string wanted = types::String(*found, {"spec", "schedulerName"}, "default-scheduler");
  std::set<std::string> served;
  leases_->ForEach([&](const Json& lease) {
    if (!client::LeaseFresh(lease, now)) return;
    std::string names = types::ObjectView(lease).Annotation(api::types::kSchedulerNamesAnnotation);
    size_t start = 0;
    while (start <= names.size() && !names.empty()) {
      size_t comma = names.find(',', start);
      std::string one(Trim(names.substr(start, comma - start)));
      if (!one.empty()) served.insert(one);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  });
  if (!served.count(wanted)) {
    std::string running =
        served.empty() ? "none is running"
                       : fmt::format("running schedulers serve: {}", fmt::join(served, ", "));
    events().Record(
        {"Pod", "v1", ns, name, pod.uid()}, "Warning", "FailedScheduling",
        fmt::format("no running scheduler serves schedulerName \"{}\" ({})", wanted, running));
  }
  queue().AddAt(key, now + kRepeatMs);
  return Status::Ok();
}

}  // namespace etna::controllers
