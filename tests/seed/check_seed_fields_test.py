#!/usr/bin/env python3
"""Tests of check_seed_fields.py on small trees: a seed field without a row, a row the seed does
not write, a row without a test, references to tests that do not exist, the scheduler
ConfigMap's payloads; and the repository itself, which must pass."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_seed_fields  # noqa: E402

SEED = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: q
spec:
  weight: 3
  guarantee:
    nvidia.com/gpu: 1
"""

ROWS = {
    ("Queue", "apiVersion"): "`QueueTest.Weight`",
    ("Queue", "kind"): "`QueueTest.Weight`",
    ("Queue", "metadata.name"): "`QueueTest.Weight`",
    ("Queue", "spec.weight"): "`QueueTest.Weight`",
    ("Queue", 'spec.guarantee["nvidia.com/gpu"]'): '`e2e_kubectl: "apply queues"`',
}


class TreeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        self.write("examples/seed/queues.yaml", SEED)
        self.write("src/sched/queue_test.cc", "TEST(QueueTest, Weight) {}\n")
        self.write("tests/e2e/CMakeLists.txt",
                   "add_test(NAME e2e_kubectl COMMAND ${E2E}/kubectl_test.sh x)\n")
        self.write("tests/e2e/kubectl_test.sh", 'expect_output "apply queues" created\n')
        self.rows = dict(ROWS)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def problems(self):
        table = "| object | field | status | test |\n|---|---|---|---|\n"
        for (obj, field), test in self.rows.items():
            table += f"| {obj} | `{field}` | in force | {test} |\n"
        self.write("docs/seed-fields.md", "# Seed fields\n\n" + table)
        return check_seed_fields.check(self.root)[0]

    def test_complete_table_passes(self):
        self.assertEqual(self.problems(), [])

    def test_seed_field_without_row_is_named(self):
        del self.rows[("Queue", "spec.weight")]
        problems = self.problems()
        self.assertEqual(len(problems), 1)
        self.assertIn("no row for Queue `spec.weight`", problems[0])

    def test_row_the_seed_does_not_write_is_named(self):
        self.rows[("Queue", "spec.priority")] = "`QueueTest.Weight`"
        self.assertIn("Queue `spec.priority` is not in the seed's files", self.problems()[0])

    def test_row_without_test_is_named(self):
        self.rows[("Queue", "spec.weight")] = "NONE"
        self.assertIn("`spec.weight` names no test", self.problems()[0])

    def test_missing_gtest_is_named(self):
        self.rows[("Queue", "spec.weight")] = "`QueueTest.Gone`"
        self.assertIn("no gtest QueueTest.Gone", self.problems()[0])

    def test_e2e_text_must_be_in_the_script(self):
        self.rows[("Queue", "kind")] = '`e2e_kubectl: "apply nodes"`'
        self.assertIn('kubectl_test.sh has no "apply nodes"', self.problems()[0])

    def test_scheduler_configmap_payloads_are_expanded(self):
        self.write("examples/seed/config.yaml", """apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-config
  namespace: volcano-system
data:
  priority.conf: |
    defaultPriority: 1
  gpu-topology-config.json: |
    {" nicTopology": {"interNodePenalty": 50}}
""")
        paths = check_seed_fields.seed_paths(os.path.join(self.root, "examples", "seed"))
        obj = "ConfigMap volcano-scheduler-config"
        self.assertIn((obj, 'data["priority.conf"].defaultPriority'), paths)
        self.assertIn((obj, 'data["gpu-topology-config.json"][" nicTopology"].interNodePenalty'),
                      paths)
        self.assertNotIn(("ConfigMap", 'data["priority.conf"]'), paths)


class RepositoryTest(unittest.TestCase):
    def test_every_seed_field_has_a_row_and_a_test(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        problems, count = check_seed_fields.check(root)
        self.assertEqual(problems, [])
        self.assertGreater(count, 200)


if __name__ == "__main__":
    unittest.main()
