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

| part | may include |
|---|---|
| `common` | |
| `core` | `common` |
| `client` | `common` |
| `client/testing` | `client`, `server` |
| `server` | `core` |

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

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def test_includes_pointing_down_pass(self):
        self.write("src/server/api.cc", '#include "core/cycle.h"\n#include "common/status.h"\n')
        self.assertEqual(check_layers.check(self.root), [])

    def test_an_include_of_a_part_above_fails_naming_file_line_and_parts(self):
        self.write("src/core/plan.cc", '#include "core/cycle.h"\n#include "server/api.h"\n')
        self.write("src/server/api.h", "#pragma once\n")
        problems = check_layers.check(self.root)
        self.assertEqual(len(problems), 1)
        self.assertIn("src/core/plan.cc:2: part core includes server/api.h of part server",
                      problems[0])

    def test_a_sibling_that_is_not_listed_fails(self):
        self.write("src/client/rest.cc", '#include "core/cycle.h"\n')
        self.assertEqual(len(check_layers.check(self.root)), 1)

    def test_a_folder_missing_from_the_table_fails(self):
        self.write("src/extra/thing.cc", '#include "common/status.h"\n')
        problems = check_layers.check(self.root)
        self.assertEqual(len(problems), 1)
        self.assertIn("src/extra/thing.cc", problems[0])

    def test_only_test_sources_may_include_the_test_kits(self):
        self.write("src/client/testing/fake.h", '#include "server/api.h"\n')
        self.write("src/server/api.h", "#pragma once\n")
        self.write("src/client/rest_test.cc", '#include "client/testing/fake.h"\n')
        self.assertEqual(check_layers.check(self.root), [])
        self.write("src/client/rest.cc", '#include "client/testing/fake.h"\n')
        self.assertEqual(len(check_layers.check(self.root)), 1)

    def test_a_cycle_in_the_table_is_refused(self):
        self.write("docs/design.md", TABLE.replace("| `core` | `common` |", "| `core` | `server` |"))
        with self.assertRaises(SystemExit):
            check_layers.check(self.root)


class RepositoryTest(unittest.TestCase):
    def test_the_repository_keeps_its_layers(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.assertEqual(check_layers.check(root), [])


if __name__ == "__main__":
    unittest.main()
