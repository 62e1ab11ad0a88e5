#include "sched/fairness/queue_tree.h"

#include <gtest/gtest.h>

#include "sched/testing/cluster_builder.h"

namespace etna::sched::fairness {
namespace {

using testkit::Res;

// root ─ a(0) ─ a1(1), a2(2);  root ─ b(3) ─ b1(4)
std::vector<Queue> Queues() {
  std::vector<Queue> q(5);
  const char* names[] = {"a", "a1", "a2", "b", "b1"};
  QueueIdx parents[] = {kNone, 0, 0, kNone, 3};
  for (int i = 0; i < 5; ++i) {
    q[i].name = names[i];
    q[i].parent = parents[i];
  }
  q[1].allocated = Res("nvidia.com/gpu=2");
  q[4].allocated = Res("nvidia.com/gpu=1");
  return q;
}

TEST(FairnessQueueTreeTest, SubtreeCountsDescendants) {
  QueueTree t(Queues(), true);
  EXPECT_EQ(t.Path(1), (std::vector<QueueIdx>{0, 1}));
  EXPECT_EQ(t.Subtree(0).Get(kGpu), 2000);
  t.Add(2, Res("nvidia.com/gpu=3"));
  EXPECT_EQ(t.Subtree(0).Get(kGpu), 5000);
  EXPECT_EQ(t.Subtree(2).Get(kGpu), 3000);
  t.Sub(1, Res("nvidia.com/gpu=2"));
  EXPECT_EQ(t.Subtree(0).Get(kGpu), 3000);
  QueueTree flat(Queues(), false);
  EXPECT_EQ(flat.Subtree(0).Get(kGpu), 0) << "flat mode ignores parents";
}

TEST(FairnessQueueTreeTest, CompareUsesAncestorsWhereChainsDiffer) {
  QueueTree t(Queues(), true);
  std::vector<std::pair<QueueIdx, QueueIdx>> seen;
  auto cmp = [&](QueueIdx a, QueueIdx b) {
    seen.emplace_back(a, b);
    return a < b ? -1 : 1;
  };
  t.Compare(1, 4, cmp);  // a1 vs b1 → a vs b
  t.Compare(1, 2, cmp);  // a1 vs a2 → themselves
  EXPECT_EQ(t.Compare(0, 1, cmp), 0) << "an ancestor and its descendant are not ordered";
  EXPECT_EQ(seen, (std::vector<std::pair<QueueIdx, QueueIdx>>{{0, 3}, {1, 2}}));
}

TEST(FairnessQueueTreeTest, CycleHangsOffRoot) {
  auto q = Queues();
  q[0].parent = 1;  // a ↔ a1
  QueueTree t(q, true);
  EXPECT_EQ(t.Path(0).front(), t.Path(0).back());
  EXPECT_LE(t.Path(1).size(), 2u);
}

}  // namespace
}  // namespace etna::sched::fairness
