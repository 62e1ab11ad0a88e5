#!/usr/bin/env python3
"""Checks that docs/seed-fields.md covers every field the seed's YAML writes.

Walks every *.yaml file of examples/seed/, collects each field path a document writes (one row
per object kind and path; list items are written `[]`, keys holding dots or slashes are written
`["key"]`), and expands the payloads of the ConfigMap that etna's scheduler reads
(volcano-system/volcano-scheduler-config: YAML `*.conf` keys and the JSON topology file) into
their own paths. Then reads the table of docs/seed-fields.md (columns: object | field | status |
test) and fails when
  - a path the seed writes has no row (so a new field can never be accepted silently),
  - a row names a path the seed does not write (the table stays exact),
  - a row has no status or no test, or
  - a test it names does not exist: `Suite.Name` must be a gtest TEST/TEST_F/TEST_P under src/,
    bench/ or tests/; `e2e_name: "text"` must be a ctest test whose script contains the text;
    `name.py: test_x` must be a function in that file under tests/.
Prints one line per problem and exits 1 when there is any.

  check_seed_fields.py [--root DIR]     (DIR: the repository; default: two folders up from here)
"""
import argparse
import json
import os
import re
import sys

import yaml

SCHEDULER_CONFIGMAP = ("volcano-system", "volcano-scheduler-config")
GTEST = re.compile(r"^\s*TEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)
ADD_TEST = re.compile(r"add_test\(NAME\s+(\w+)\s+COMMAND\s+[^\n]*?\$\{E2E\}/(\S+)")


def key_part(key):
    key = str(key)
    return f'["{key}"]' if re.search(r"[./\s]", key) else key


def join(prefix, key):
    part = key_part(key)
    if part.startswith("["):
        return prefix + part
    return f"{prefix}.{part}" if prefix else part


def walk(node, prefix, out):
    """Adds every leaf path under `node` to `out` (an empty map or list counts as a leaf)."""
    if isinstance(node, dict):
        if not node and prefix:
            out.add(prefix)
        for k, v in node.items():
            walk(v, join(prefix, k), out)
    elif isinstance(node, list):
        if not node:
            out.add(prefix + "[]")
        for v in node:
            walk(v, prefix + "[]", out)
    else:
        out.add(prefix)


def embedded_paths(name, text, prefix):
    """Paths inside one payload of the scheduler ConfigMap, or None when it is not structured."""
    try:
        payload = json.loads(text) if name.endswith(".json") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError):
        return None
    if not isinstance(payload, (dict, list)):
        return None
    out = set()
    walk(payload, prefix, out)
    return out


def seed_paths(seed_dir):
    """{(object, path)}: what the seed's files write."""
    rows = set()
    for name in sorted(os.listdir(seed_dir)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(seed_dir, name), encoding="utf-8") as f:
            docs = list(yaml.safe_load_all(f))
        for doc in docs:
            if not isinstance(doc, dict):
                continue
            kind = str(doc.get("kind", "(no kind)"))
            paths = set()
            walk(doc, "", paths)
            meta = doc.get("metadata") or {}
            if kind == "ConfigMap" and (meta.get("namespace"), meta.get("name")) == SCHEDULER_CONFIGMAP:
                obj = f"ConfigMap {meta['name']}"
                for key, text in (doc.get("data") or {}).items():
                    data_path = join("data", key)
                    inner = embedded_paths(key, str(text), data_path)
                    if inner:
                        rows.update((obj, p) for p in inner)
                        paths.discard(data_path)
            rows.update((kind, p) for p in paths)
    return rows


def read_table(table_md):
    """{(object, path): (status, test, line number)} from the markdown table's rows."""
    rows = {}
    with open(table_md, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 4 or cells[0] in ("object", "") or set(cells[0]) <= set("-: "):
                continue
            field = cells[1].strip("`")
            rows[(cells[0], field)] = (cells[2], cells[3], number)
    return rows


class TestIndex:
    """What tests exist in the repository: gtest names, ctest e2e scripts and python tests."""

    def __init__(self, root):
        self.root = root
        self.gtests = set()
        for top in ("src", "bench", "tests"):
            for folder, _, files in os.walk(os.path.join(root, top)):
                for name in files:
                    if name.endswith((".cc", ".h")):
                        with open(os.path.join(folder, name), encoding="utf-8") as f:
                            self.gtests.update(f"{s}.{n}" for s, n in GTEST.findall(f.read()))
        self.e2e = {}
        cmake = os.path.join(root, "tests", "e2e", "CMakeLists.txt")
        if os.path.exists(cmake):
            with open(cmake, encoding="utf-8") as f:
                for test, script in ADD_TEST.findall(f.read()):
                    self.e2e[test] = os.path.join(root, "tests", "e2e", script)

    def problem(self, ref):
        """None when the reference names an existing test, else why not."""
        m = re.fullmatch(r"(e2e_\w+): \"(.+)\"", ref)
        if m:
            script = self.e2e.get(m.group(1))
            if not script:
                return f"no ctest test {m.group(1)} in tests/e2e/CMakeLists.txt"
            with open(script, encoding="utf-8") as f:
                if m.group(2) not in f.read():
                    return f'{os.path.basename(script)} has no "{m.group(2)}"'
            return None
        m = re.fullmatch(r"([\w/]+\.py): (test_\w+)", ref)
        if m:
            path = os.path.join(self.root, "tests", m.group(1))
            if not os.path.exists(path):
                return f"no file tests/{m.group(1)}"
            with open(path, encoding="utf-8") as f:
                if not re.search(rf"def {m.group(2)}\(", f.read()):
                    return f"tests/{m.group(1)} has no {m.group(2)}"
            return None
        if re.fullmatch(r"\w+\.\w+", ref):
            return None if ref in self.gtests else f"no gtest {ref}"
        return f"cannot read test reference {ref!r}"


def references(cell):
    """The backticked test references in a table cell."""
    return re.findall(r"`([^`]+)`", cell)


def check(root):
    """Returns (problems, number of seed paths)."""
    seed = seed_paths(os.path.join(root, "examples", "seed"))
    table_md = os.path.join(root, "docs", "seed-fields.md")
    table = read_table(table_md)
    tests = TestIndex(root)
    problems = []
    for obj, path in sorted(seed - table.keys()):
        problems.append(f"docs/seed-fields.md: no row for {obj} `{path}` (the seed writes it)")
    for obj, path in sorted(table.keys() - seed):
        line = table[(obj, path)][2]
        problems.append(f"docs/seed-fields.md:{line}: {obj} `{path}` is not in the seed's files")
    for (obj, path), (status, test, line) in sorted(table.items(), key=lambda r: r[1][2]):
        if not status:
            problems.append(f"docs/seed-fields.md:{line}: {obj} `{path}` has no status")
        refs = references(test)
        if not refs:
            problems.append(f"docs/seed-fields.md:{line}: {obj} `{path}` names no test")
        for ref in refs:
            why = tests.problem(ref)
            if why:
                problems.append(f"docs/seed-fields.md:{line}: {obj} `{path}`: {why}")
    return problems, len(seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(here)))
    args = parser.parse_args()
    problems, count = check(args.root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check_seed_fields: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_seed_fields: all {count} seed fields have a row and a test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
