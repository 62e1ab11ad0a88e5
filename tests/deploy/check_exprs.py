#!/usr/bin/python3
"""Checks deploy/'s alert rules and Grafana dashboards against the metrics etna serves.

Every `expr` in deploy/prometheus/rules/*.yaml, every target `expr` and every query
variable in deploy/grafana/*.json is tokenized (a small PromQL lexer, not a parser) and each
metric name it reads must be a family of one of the Prometheus text exposition files given
with --metrics (`# TYPE` lines and sample names; `up` is always there). A histogram's
`_bucket`, `_sum` and `_count` series belong to its family. The dashboards' structure is
checked too: unique panel ids, gridPos on the 24-column grid, a refId and an expr on every
target, the `${datasource}` variable on every panel and query.

Usage: check_exprs.py --metrics FILE [FILE...] [--deploy DIR]
Exit status 0 when all is well, 1 with one line per problem on stderr.
"""
import argparse
import glob
import json
import os
import re
import sys

import yaml

GRID_COLUMNS = 24
DATASOURCE_UID = "${datasource}"
PANEL_TYPES = {"timeseries", "stat", "gauge", "table", "bargauge", "heatmap", "piechart",
               "text", "row"}

# Words that are PromQL syntax, not metric names, where they are not followed by `(`.
KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
    "unless", "offset", "atan2", "inf", "nan",
    # aggregation operators, which may be followed by `by (...)` before their `(`
    "sum", "avg", "count", "min", "max", "stddev", "stdvar", "topk", "bottomk", "quantile",
    "count_values", "group",
}
# Keywords followed by a parenthesized list of label names.
LABEL_LIST_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
SUMMARY_SUFFIXES = ("_sum", "_count")

IDENT = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
NUMBER = re.compile(r"(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?[A-Za-z0-9_]*)")
VARIABLE = re.compile(r"\$(?:\{[^}]*\}|[A-Za-z0-9_]+)|\[\[[^\]]*\]\]")


class Token:
    """One lexeme: kind is 'ident', 'string', 'number', 'var', 'range' or the punctuation."""

    def __init__(self, kind, text):
        self.kind = kind
        self.text = text

    def __repr__(self):
        return f"Token({self.kind!r}, {self.text!r})"


def tokenize(expr):
    """Splits a PromQL expression (with Grafana's $variables) into tokens."""
    tokens = []
    i = 0
    n = len(expr)
    while i < n:
        ch = expr[i]
        if ch.isspace():
            i += 1
        elif ch == "#":  # a comment runs to the end of the line
            while i < n and expr[i] != "\n":
                i += 1
        elif ch in "\"'`":
            j = i + 1
            while j < n and expr[j] != ch:
                j += 2 if expr[j] == "\\" and ch != "`" else 1
            if j >= n:
                raise ValueError(f"unterminated string starting at offset {i}")
            tokens.append(Token("string", expr[i + 1:j]))
            i = j + 1
        elif ch == "[" and not expr.startswith("[[", i):
            # a range or subquery: [5m], [5m:1m], [$__rate_interval]
            j = expr.find("]", i)
            if j < 0:
                raise ValueError(f"unterminated [ at offset {i}")
            tokens.append(Token("range", expr[i:j + 1]))
            i = j + 1
        elif ch == "$" or expr.startswith("[[", i):
            m = VARIABLE.match(expr, i)
            if not m:
                raise ValueError(f"bad variable reference at offset {i}")
            tokens.append(Token("var", m.group(0)))
            i = m.end()
        elif ch.isdigit() or (ch == "." and i + 1 < n and expr[i + 1].isdigit()):
            m = NUMBER.match(expr, i)
            tokens.append(Token("number", m.group(0)))
            i = m.end()
        elif IDENT.match(expr, i):
            m = IDENT.match(expr, i)
            tokens.append(Token("ident", m.group(0)))
            i = m.end()
        else:
            tokens.append(Token(ch, ch))
            i += 1
    return tokens


def metric_names(expr):
    """The metric names an expression reads, in order of first use."""
    tokens = tokenize(expr)
    names = []
    brace_depth = 0
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.kind == "{":
            brace_depth += 1
        elif t.kind == "}":
            brace_depth = max(0, brace_depth - 1)
        elif brace_depth > 0:
            # a label matcher: {__name__="metric"} names a metric; other names are labels
            if (t.kind == "ident" and t.text == "__name__" and nxt is not None and
                    nxt.kind == "=" and i + 2 < len(tokens) and tokens[i + 2].kind == "string"):
                names.append(tokens[i + 2].text)
                i += 2
        elif t.kind == "ident":
            word = t.text.lower()
            if word in LABEL_LIST_KEYWORDS and nxt is not None and nxt.kind == "(":
                i = _skip_parens(tokens, i + 1)
                continue
            if word in KEYWORDS:
                pass
            elif nxt is not None and nxt.kind == "(":
                pass  # a function call
            elif t.text not in names:
                names.append(t.text)
        i += 1
    return names


def _skip_parens(tokens, open_index):
    """The index after the `)` that closes tokens[open_index] (a `(`)."""
    depth = 0
    for j in range(open_index, len(tokens)):
        if tokens[j].kind == "(":
            depth += 1
        elif tokens[j].kind == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced parentheses")


class Families:
    """The metric families of Prometheus text exposition files."""

    def __init__(self):
        self.kinds = {}  # family name -> type from `# TYPE`
        self.samples = set()  # sample names

    def load(self, path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line.startswith("#"):
                    parts = line.split(None, 3)
                    if len(parts) >= 4 and parts[1] == "TYPE":
                        self.kinds[parts[2]] = parts[3].strip()
                elif line:
                    m = IDENT.match(line)
                    if m:
                        self.samples.add(m.group(0))

    def problem(self, name, extra_names=()):
        """None when `name` can be read, else why not."""
        if name == "up" or name in extra_names or name in self.samples:
            return None
        kind = self.kinds.get(name)
        if kind in ("histogram", "gaugehistogram"):
            return f"{name} is a histogram: read {name}_bucket, {name}_sum or {name}_count"
        if kind is not None:
            return None
        for suffix in HISTOGRAM_SUFFIXES:
            base = name[:-len(suffix)]
            if name.endswith(suffix) and (
                    self.kinds.get(base) in ("histogram", "gaugehistogram") or
                    (self.kinds.get(base) == "summary" and suffix in SUMMARY_SUFFIXES)):
                return None
        return f"unknown metric {name}"


class Checker:
    """Collects the problems of rule files and dashboards against known families."""

    def __init__(self, families):
        self.families = families
        self.problems = []
        self.exprs_checked = 0

    def report(self, where, message):
        self.problems.append(f"{where}: {message}")

    def check_expr(self, where, expr, extra_names=()):
        self.exprs_checked += 1
        try:
            names = metric_names(expr)
        except ValueError as e:
            self.report(where, f"cannot read expr ({e}): {expr!r}")
            return
        for name in names:
            why = self.families.problem(name, extra_names)
            if why:
                self.report(where, why)

    # ---- rule files ----

    def check_rule_file(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                doc = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            self.report(path, f"cannot read: {e}")
            return
        groups = doc.get("groups") if isinstance(doc, dict) else None
        if not isinstance(groups, list):
            self.report(path, "no `groups` list")
            return
        recorded = {r.get("record") for g in groups for r in (g.get("rules") or [])
                    if isinstance(r, dict) and r.get("record")}
        for group in groups:
            for rule in group.get("rules") or []:
                name = rule.get("alert") or rule.get("record") or "?"
                kind = "alert" if rule.get("alert") else "record"
                where = f"{path}: group {group.get('name')} {kind} {name}"
                if not isinstance(rule.get("expr"), str) or not rule["expr"].strip():
                    self.report(where, "no expr")
                    continue
                self.check_expr(where, rule["expr"], recorded)

    # ---- dashboards ----

    def check_dashboard(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                dash = json.load(f)
        except (OSError, ValueError) as e:
            self.report(path, f"cannot read: {e}")
            return
        for field in ("uid", "title", "schemaVersion", "panels", "templating"):
            if field not in dash:
                self.report(path, f"missing top-level field `{field}`")
        variables = self._check_templating(path, dash.get("templating") or {})
        ids = {}
        for panel in _all_panels(dash.get("panels") or []):
            self._check_panel(path, panel, ids, variables)

    def _check_templating(self, path, templating):
        """Checks the variables; returns their names."""
        variables = templating.get("list") or []
        names = {v.get("name") for v in variables}
        if not any(v.get("type") == "datasource" and v.get("name") == "datasource" and
                   v.get("query") == "prometheus" for v in variables):
            self.report(path, "templating has no `datasource` variable of type datasource "
                        "with query `prometheus`")
        for v in variables:
            if v.get("type") != "query":
                continue
            where = f"{path}: variable {v.get('name')}"
            self._check_datasource(where, v.get("datasource"))
            query = v.get("query")
            if isinstance(query, dict):
                query = query.get("query")
            if not isinstance(query, str) or not query.strip():
                self.report(where, "no query")
                continue
            expr = _variable_query_expr(query)
            if expr:
                self._check_variables_used(where, expr, names)
                self.check_expr(where, expr)
        return names

    def _check_panel(self, path, panel, ids, variables):
        pid = panel.get("id")
        where = f"{path}: panel {pid} \"{panel.get('title', '')}\""
        if not isinstance(pid, int):
            self.report(where, "panel id is not an integer")
        elif pid in ids:
            self.report(where, f"duplicate panel id {pid} (also \"{ids[pid]}\")")
        else:
            ids[pid] = panel.get("title", "")
        if panel.get("type") not in PANEL_TYPES:
            self.report(where, f"panel type {panel.get('type')!r} is not one of "
                        f"{', '.join(sorted(PANEL_TYPES))}")
        self._check_grid(where, panel.get("gridPos"))
        if panel.get("type") == "row":
            return
        targets = panel.get("targets")
        if not isinstance(targets, list) or not targets:
            if panel.get("type") != "text":
                self.report(where, "no targets")
            return
        self._check_datasource(where, panel.get("datasource"))
        ref_ids = set()
        for index, target in enumerate(targets):
            ref = target.get("refId")
            twhere = f"{where} target {ref or index}"
            if not ref:
                self.report(twhere, "target has no refId")
            elif ref in ref_ids:
                self.report(twhere, f"duplicate refId {ref}")
            ref_ids.add(ref)
            if "datasource" in target:
                self._check_datasource(twhere, target["datasource"])
            expr = target.get("expr")
            if not isinstance(expr, str) or not expr.strip():
                self.report(twhere, "target has no expr")
                continue
            self._check_variables_used(twhere, expr, variables)
            self.check_expr(twhere, expr)

    def _check_grid(self, where, grid):
        if not isinstance(grid, dict):
            self.report(where, "no gridPos")
            return
        values = {k: grid.get(k) for k in ("x", "y", "w", "h")}
        if not all(isinstance(v, int) for v in values.values()):
            self.report(where, f"gridPos needs integer x, y, w, h: {grid}")
            return
        if (values["x"] < 0 or values["y"] < 0 or values["w"] < 1 or values["h"] < 1 or
                values["x"] + values["w"] > GRID_COLUMNS):
            self.report(where, f"gridPos {grid} is not within the {GRID_COLUMNS}-column grid")

    def _check_datasource(self, where, datasource):
        if not (isinstance(datasource, dict) and datasource.get("type") == "prometheus" and
                datasource.get("uid") == DATASOURCE_UID):
            self.report(where, f"datasource must be {{type: prometheus, uid: {DATASOURCE_UID}}}, "
                        f"not {datasource!r}")

    def _check_variables_used(self, where, expr, variables):
        for ref in VARIABLE.findall(expr):
            name = ref.strip("${}[]").split(":")[0]
            if not name.startswith("__") and not name.isdigit() and name not in variables:
                self.report(where, f"undefined dashboard variable {ref}")


def _all_panels(panels):
    """Panels with the ones nested in collapsed rows."""
    for panel in panels:
        yield panel
        yield from _all_panels(panel.get("panels") or [])


def _variable_query_expr(query):
    """The PromQL inside a Grafana Prometheus variable query, or None when it reads none."""
    query = query.strip()
    m = re.fullmatch(r"label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)", query, re.S)
    if m:
        return m.group(1)
    if re.fullmatch(r"label_values\(\s*[A-Za-z_][A-Za-z0-9_]*\s*\)", query):
        return None
    m = re.fullmatch(r"query_result\((.*)\)", query, re.S)
    if m:
        return m.group(1)
    m = re.fullmatch(r"metrics\(.*\)|label_names\(.*\)", query, re.S)
    if m:
        return None
    return query


def main(argv):
    default_deploy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metrics", nargs="+", required=True,
                        help="Prometheus text exposition files (what the components serve)")
    parser.add_argument("--deploy", default=os.path.normpath(default_deploy),
                        help="the deploy/ directory (default: the repository's)")
    args = parser.parse_args(argv)

    families = Families()
    for path in args.metrics:
        try:
            families.load(path)
        except OSError as e:
            print(f"check_exprs: cannot read {path}: {e}", file=sys.stderr)
            return 1
    checker = Checker(families)
    rule_files = sorted(glob.glob(os.path.join(args.deploy, "prometheus", "rules", "*.yaml")))
    dashboards = sorted(glob.glob(os.path.join(args.deploy, "grafana", "*.json")))
    if not rule_files and not dashboards:
        print(f"check_exprs: no rules or dashboards under {args.deploy}", file=sys.stderr)
        return 1
    for path in rule_files:
        checker.check_rule_file(path)
    for path in dashboards:
        checker.check_dashboard(path)
    for problem in checker.problems:
        print(problem, file=sys.stderr)
    if checker.problems:
        print(f"check_exprs: {len(checker.problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_exprs: {checker.exprs_checked} exprs in {len(rule_files)} rule files and "
          f"{len(dashboards)} dashboards read only the {len(families.kinds)} families given")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
