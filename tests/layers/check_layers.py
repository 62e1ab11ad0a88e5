#!/usr/bin/env python3
"""Checks that every part under src/ includes only headers of the parts below it.

The rule lives in docs/design.md, section "Layers": a table of parts and what each may include.
A part may include its own headers, the parts it lists, and transitively what those may include.
Test sources may also include the test kits (parts ending in "/testing"). Prints one line per
violation, naming the file, the line, both parts and the rule, and exits 1 when there is any.

  check_layers.py [--root DIR]     (DIR: the repository; default: two folders up from here)
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
TEST_FILE = re.compile(r'(_test\.cc|_fixture\.h|test_kit\.h|test_util\.h|test_support\.h)$')


def read_table(design_md):
    """Returns ({part: [listed parts]}, {part: [parts its tests may also include]}) from the
    "## Layers" section's table."""
    with open(design_md, encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^## Layers\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not section:
        raise SystemExit(f"{design_md}: no '## Layers' section")
    table, tests = {}, {}
    for line in section.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) not in (2, 3) or not cells[0].startswith("`"):
            continue
        part = cells[0].strip("`")
        table[part] = re.findall(r"`([^`]+)`", cells[1])
        tests[part] = re.findall(r"`([^`]+)`", cells[2]) if len(cells) == 3 else []
    if not table:
        raise SystemExit(f"{design_md}: the Layers section has no table of parts")
    for part, extra in tests.items():
        for dep in extra:
            if dep not in table:
                raise SystemExit(f"docs/design.md Layers: {part}'s tests list unknown part {dep}")
    return table, tests


def closure(table):
    """Returns {part: set of parts it may include}, failing on unknown parts and cycles."""
    for part, listed in table.items():
        for dep in listed:
            if dep not in table:
                raise SystemExit(f"docs/design.md Layers: {part} lists unknown part {dep}")
    allowed, visiting = {}, set()

    def visit(part):
        if part in allowed:
            return allowed[part]
        if part in visiting:
            raise SystemExit(f"docs/design.md Layers: a cycle through {part}")
        visiting.add(part)
        result = set()
        for dep in table[part]:
            result.add(dep)
            result |= visit(dep)
        visiting.discard(part)
        allowed[part] = result
        return result

    for part in table:
        visit(part)
    return allowed


def part_of(path, parts):
    """The longest part that is a folder prefix of `path` (relative to src/), or None."""
    best = None
    for part in parts:
        if path == part or path.startswith(part + "/"):
            if best is None or len(part) > len(best):
                best = part
    return best


def check(root):
    table, test_extras = read_table(os.path.join(root, "docs", "design.md"))
    allowed = closure(table)
    kits = {p for p in table if p.endswith("/testing")}
    src = os.path.join(root, "src")
    problems = []
    checked = 0
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".h", ".cc", ".h.in")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, src)
            own = part_of(rel, table)
            if own is None:
                problems.append(f"src/{rel}: its folder is no part in docs/design.md's Layers table")
                continue
            may = allowed[own] | {own}
            if TEST_FILE.search(name):
                may = may | kits
                for extra in test_extras[own]:
                    may = may | {extra} | allowed[extra]
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    if ".." in m.group(1).split("/"):
                        problems.append(f"src/{rel}:{number}: includes {m.group(1)}; include "
                                        "headers by their path under src/")
                        continue
                    if "/" not in m.group(1):
                        continue  # a generated header beside the file
                    checked += 1
                    target = part_of(m.group(1), table)
                    if target is None:
                        if os.path.exists(os.path.join(src, m.group(1))):
                            problems.append(f"src/{rel}:{number}: includes {m.group(1)}, "
                                            "whose folder is no part in the Layers table")
                        continue
                    if target not in may:
                        problems.append(
                            f"src/{rel}:{number}: part {own} includes {m.group(1)} of part "
                            f"{target}, which is not below it (docs/design.md, Layers)")
    return problems, checked


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(here)))
    args = parser.parse_args()
    problems, checked = check(args.root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layer order", file=sys.stderr)
        return 1
    print(f"check_layers: all {checked} includes point down the layer order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
