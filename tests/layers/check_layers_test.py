#!/usr/bin/env python3
"""Tests of check_layers.py on small trees: an include that points up, a part missing from the
table, a cycle, test kits; and the repository itself, which must pass."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402

TABLE = """# Design

## Layers

| part | may include | its tests may also include |
|---|---|---|
| `common` | | |
| `core` | `common` | |
| `client` | `common` | `server` |
| `client/testing` | `client`, `server` | |
| `server` | `core` | |

## Next
"""


class TreeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        self.write("docs/design.md", TABLE)
        self.write("src/common/status.h", "#pragma once\n")
        self.write("src/core/cycle.h", '#include "common/status.h"\n#include <vector>\n')

    def tearDown(self):
        self.dir.cleanup()

    def problems(self):
        return check_layers.check(self.root)[0]

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def test_includes_pointing_down_pass(self):
        self.write("src/server/api.cc", '#include "core/cycle.h"\n#include "common/status.h"\n')
        self.assertEqual(self.problems(), [])

    def test_an_include_of_a_part_above_fails_naming_file_line_and_parts(self):
        self.write("src/core/plan.cc", '#include "core/cycle.h"\n#include "server/api.h"\n')
        self.write("src/server/api.h", "#pragma once\n")
        problems = self.problems()
        self.assertEqual(len(problems), 1)
        self.assertIn("src/core/plan.cc:2: part core includes server/api.h of part server",
                      problems[0])

    def test_a_sibling_that_is_not_listed_fails(self):
        self.write("src/client/rest.cc", '#include "core/cycle.h"\n')
        self.assertEqual(len(self.problems()), 1)

    def test_a_folder_missing_from_the_table_fails(self):
        self.write("src/extra/thing.cc", '#include "common/status.h"\n')
        problems = self.problems()
        self.assertEqual(len(problems), 1)
        self.assertIn("src/extra/thing.cc", problems[0])

    def test_only_test_sources_may_include_the_test_kits(self):
        self.write("src/client/testing/fake.h", '#include "server/api.h"\n')
        self.write("src/server/api.h", "#pragma once\n")
        self.write("src/client/rest_test.cc", '#include "client/testing/fake.h"\n')
        self.assertEqual(self.problems(), [])
        self.write("src/client/rest.cc", '#include "client/testing/fake.h"\n')
        self.assertEqual(len(self.problems()), 1)

    def test_tests_get_the_kits_and_their_own_extras_but_no_more(self):
        self.write("src/server/api.h", "#pragma once\n")
        self.write("src/client/informer_test.cc", '#include "server/api.h"\n')
        self.assertEqual(self.problems(), [])
        self.write("src/core/cycle_test.cc", '#include "server/api.h"\n')
        problems = self.problems()
        self.assertEqual(len(problems), 1)
        self.assertIn("src/core/cycle_test.cc:1", problems[0])

    def test_a_relative_include_is_refused(self):
        self.write("src/core/plan.cc", '#include "../server/api.h"\n')
        problems = self.problems()
        self.assertEqual(len(problems), 1)
        self.assertIn("by their path under src/", problems[0])

    def test_a_cycle_in_the_table_is_refused(self):
        self.write("docs/design.md", TABLE.replace("| `core` | `common` |", "| `core` | `server` |"))
        with self.assertRaises(SystemExit):
            self.problems()


class RepositoryTest(unittest.TestCase):
    def test_the_repository_keeps_its_layers(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        problems, checked = check_layers.check(root)
        self.assertEqual(problems, [])
        # The walk really read the tree: a moved src/ or another include style would check nothing.
        self.assertGreater(checked, 500)


if __name__ == "__main__":
    unittest.main()
