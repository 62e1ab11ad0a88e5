#include "common/status.h"

#include <gtest/gtest.h>

namespace etna {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("x must be even");
  return x / 2;
}

Result<int> Quarter(int x) {
  ETNA_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(StatusTest, OkAndError) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = Status::NotFound("queue \"q1\"");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "NotFound: queue \"q1\"");
  EXPECT_EQ(s.WithContext("job j").message(), "job j: queue \"q1\"");
}

TEST(StatusTest, ResultPropagates) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace etna
