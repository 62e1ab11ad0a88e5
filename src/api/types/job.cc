#include "api/types/job.h"

namespace etna::api::types {

int64_t Job::TotalReplicas() const {
  int64_t sum = 0;
  for (const Json& t : tasks()) sum += JobTask(t).replicas();
  return sum;
}

int64_t Job::MinAvailable() const {
  return Integer(json(), {"spec", "minAvailable"}, TotalReplicas());
}

}  // namespace etna::api::types
