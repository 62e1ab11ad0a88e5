// Test helper: opens a session over a snapshot with a configuration, so tests can call the
// session's dispatch functions (Reclaimable, Preemptive, Overused, ...) on the plugins directly.
// Test-only; not thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched::testkit {

class OpenSession {
 public:
  OpenSession(const Snapshot& snap, std::string_view conf_yaml)
      : conf_(Conf(conf_yaml)), session_(snap, conf_, BuiltinRegistry()) {
    Status st = session_.Open();
    EXPECT_TRUE(st.ok()) << st.message();
  }
  Session& operator*() { return session_; }
  Session* operator->() { return &session_; }

  TaskIdx Task(std::string_view name) const {
    for (size_t i = 0; i < session_.tasks().size(); ++i) {
      if (session_.tasks()[i].name == name) return static_cast<TaskIdx>(i);
    }
    ADD_FAILURE() << "no task " << name;
    return 0;
  }
  const etna::sched::Queue& Queue(std::string_view name) const {
    for (const auto& q : session_.queues()) {
      if (q.name == name) return q;
    }
    ADD_FAILURE() << "no queue " << name;
    return session_.queues().front();
  }
  const etna::sched::Job& Job(std::string_view name) const {
    for (const auto& j : session_.jobs()) {
      if (j.name == name) return j;
    }
    ADD_FAILURE() << "no job " << name;
    return session_.jobs().front();
  }
  // Names of the allowed victims, sorted by task index.
  std::vector<std::string> Names(const std::optional<std::vector<TaskIdx>>& victims) const {
    std::vector<std::string> out;
    if (!victims) return {"<abstain>"};
    for (TaskIdx t : *victims) out.push_back(session_.tasks()[t].name);
    return out;
  }
  // Every running task, as victim candidates.
  std::vector<TaskIdx> Running() const {
    std::vector<TaskIdx> out;
    for (size_t i = 0; i < session_.tasks().size(); ++i) {
      if (session_.tasks()[i].status == TaskStatus::kRunning)
        out.push_back(static_cast<TaskIdx>(i));
    }
    return out;
  }

 private:
  SchedulerConf conf_;
  Session session_;
};

}  // namespace etna::sched::testkit
