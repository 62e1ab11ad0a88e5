#include "store/write_plan.h"

#include <fmt/format.h>

#include <map>

#include "store/keys.h"

namespace etna::store {
namespace {

Result<PlannedWrite> PlanOne(const TxnOp& op, Revision rev, const std::optional<KeyValue>& cur) {
  ETNA_RETURN_IF_ERROR(ValidateKey(op.key));
  PlannedWrite w;
  w.prev = cur;
  w.event.key = op.key;
  w.event.revision = rev;
  if (op.kind == TxnOp::Kind::kCreate) {
    if (cur) return Status::AlreadyExists(fmt::format("{} already exists", op.key));
    w.event.type = EventType::kAdded;
    w.event.value = op.value;
    w.event.create_revision = rev;
    return w;
  }
  if (!cur) return Status::NotFound(fmt::format("{} not found", op.key));
  if (op.expected_revision != 0 && op.expected_revision != cur->mod_revision) {
    return Status::Conflict(fmt::format("{}: resourceVersion {} is stale, the object is at {}",
                                        op.key, op.expected_revision, cur->mod_revision));
  }
  w.event.create_revision = cur->create_revision;
  if (op.kind == TxnOp::Kind::kUpdate) {
    w.event.type = EventType::kModified;
    w.event.value = op.value;
  } else {
    w.event.type = EventType::kDeleted;
    w.event.value = cur->value;
  }
  return w;
}

}  // namespace

Result<std::vector<PlannedWrite>> PlanWrites(const std::vector<TxnOp>& ops, Revision next_revision,
                                             const LookupFn& lookup) {
  if (ops.empty()) return Status::InvalidArgument("a transaction needs at least one op");
  std::map<std::string, std::optional<KeyValue>> overlay;  // keys written earlier in `ops`
  std::vector<PlannedWrite> out;
  out.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const TxnOp& op = ops[i];
    std::optional<KeyValue> cur;
    if (auto it = overlay.find(op.key); it != overlay.end()) {
      cur = it->second;
    } else if (ValidateKey(op.key).ok()) {
      auto looked = lookup(op.key);
      if (!looked.ok()) return looked.status();
      cur = std::move(looked).value();
    }
    auto planned = PlanOne(op, next_revision + static_cast<Revision>(i), cur);
    if (!planned.ok()) {
      if (ops.size() == 1) return planned.status();
      return planned.status().WithContext(fmt::format("op {}", i));
    }
    const Event& e = planned->event;
    if (e.type == EventType::kDeleted) {
      overlay[op.key] = std::nullopt;
    } else {
      overlay[op.key] = KeyValue{e.key, e.value, e.create_revision, e.revision};
    }
    out.push_back(std::move(planned).value());
  }
  return out;
}

}  // namespace etna::store
