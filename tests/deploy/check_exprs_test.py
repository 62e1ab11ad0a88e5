#!/usr/bin/python3
"""Unit tests of check_exprs.py: its PromQL metric-name extraction, and that it rejects what
it should (an unknown metric in a dashboard or a rule, a duplicate panel id, a panel off the
grid, a target without refId, a wrong datasource) and accepts the repository's deploy/.

Usage: check_exprs_test.py   (unittest; run from anywhere)
"""
import contextlib
import copy
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_exprs  # noqa: E402

EXPECTED = os.path.join(HERE, "testdata", "expected_families.prom")
DEPLOY = os.path.normpath(os.path.join(HERE, "..", "..", "deploy"))

METRICS = """\
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="n1"} 10
# TYPE volcano_e2e_scheduling_latency_milliseconds histogram
volcano_e2e_scheduling_latency_milliseconds_bucket{le="+Inf"} 1
volcano_e2e_scheduling_latency_milliseconds_sum 3
volcano_e2e_scheduling_latency_milliseconds_count 1
# TYPE volcano_unschedule_job_count gauge
volcano_unschedule_job_count 0
# TYPE etna_queue_pending_jobs gauge
"""

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def good_dashboard():
    return {
        "uid": "t", "title": "t", "schemaVersion": 39,
        "templating": {"list": [
            {"name": "datasource", "type": "datasource", "query": "prometheus"},
            {"name": "Hostname", "type": "query", "datasource": DATASOURCE,
             "query": "label_values(DCGM_FI_DEV_GPU_UTIL, Hostname)"},
        ]},
        "panels": [
            {"id": 1, "type": "row", "title": "r", "gridPos": {"x": 0, "y": 0, "w": 24, "h": 1}},
            {"id": 2, "type": "timeseries", "title": "util", "datasource": DATASOURCE,
             "gridPos": {"x": 0, "y": 1, "w": 12, "h": 8},
             "targets": [{"refId": "A", "datasource": DATASOURCE,
                          "expr": "avg by (Hostname) "
                                  '(DCGM_FI_DEV_GPU_UTIL{Hostname=~"$Hostname"})'}]},
            {"id": 3, "type": "stat", "title": "p99", "datasource": DATASOURCE,
             "gridPos": {"x": 12, "y": 1, "w": 12, "h": 8},
             "targets": [{"refId": "A",
                          "expr": "histogram_quantile(0.99, sum by (le) (rate(volcano_e2e_"
                                  "scheduling_latency_milliseconds_bucket[$__rate_interval])))"}]},
        ],
    }


class MetricNamesTest(unittest.TestCase):
    def test_functions_keywords_labels_and_strings_are_not_metrics(self):
        cases = {
            'sum by (le, action) (rate(x_bucket{action="allocate"}[5m]))': ["x_bucket"],
            "a / on (queue_name) group_left (node) b": ["a", "b"],
            "a > bool 3 unless ignoring (job) c offset 1h30m": ["a", "c"],
            'count(up == 0) or vector(0)': ["up"],
            'label_replace(q, "dst", "$1", "src", "(.*) and sum")': ["q"],
            'max_over_time(m[1h:5m]) @ end()': ["m"],
            '{__name__="named", job="x"}': ["named"],
            'x{a="}", b=~"$Hostname"} AND y BY (z)': ["x", "y"],
            "1e-3 * k + .5 - 0x1f  # a comment naming not_a_metric": ["k"],
            "sum(rate(t[$__rate_interval])) without (instance)": ["t"],
        }
        for expr, names in cases.items():
            with self.subTest(expr=expr):
                self.assertEqual(check_exprs.metric_names(expr), names)

    def test_unterminated_string_is_an_error(self):
        with self.assertRaises(ValueError):
            check_exprs.metric_names('x{a="b}')


class CheckerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="check-exprs-test-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.metrics = os.path.join(self.tmp, "metrics.prom")
        with open(self.metrics, "w") as f:
            f.write(METRICS)
        self.deploy = os.path.join(self.tmp, "deploy")
        os.makedirs(os.path.join(self.deploy, "grafana"))
        os.makedirs(os.path.join(self.deploy, "prometheus", "rules"))

    def write_dashboard(self, dashboard):
        with open(os.path.join(self.deploy, "grafana", "d.json"), "w") as f:
            json.dump(dashboard, f)

    def write_rules(self, text):
        with open(os.path.join(self.deploy, "prometheus", "rules", "r.yaml"), "w") as f:
            f.write(text)

    def run_check(self):
        """(exit status, stderr) of check_exprs on the temp deploy/."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = check_exprs.main(["--metrics", self.metrics, "--deploy", self.deploy])
        return status, err.getvalue()

    def test_good_dashboard_passes(self):
        self.write_dashboard(good_dashboard())
        self.assertEqual(self.run_check(), (0, ""))

    def test_unknown_metric_in_a_dashboard_is_named(self):
        d = good_dashboard()
        d["panels"][1]["targets"][0]["expr"] = "DCGM_FI_DEV_GPU_UTILIZATION"
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn('d.json: panel 2 "util" target A: unknown metric DCGM_FI_DEV_GPU_UTILIZATION',
                      err)

    def test_unknown_metric_in_a_variable_query(self):
        d = good_dashboard()
        d["templating"]["list"][1]["query"] = "label_values(nope, Hostname)"
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("variable Hostname: unknown metric nope", err)

    def test_duplicate_panel_id(self):
        d = good_dashboard()
        d["panels"][2]["id"] = 2
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn('panel 2 "p99": duplicate panel id 2 (also "util")', err)

    def test_duplicate_panel_id_inside_a_collapsed_row(self):
        d = good_dashboard()
        d["panels"][0]["panels"] = [copy.deepcopy(d["panels"][1])]
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("duplicate panel id 2", err)

    def test_panel_off_the_grid(self):
        d = good_dashboard()
        d["panels"][2]["gridPos"]["x"] = 16
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("not within the 24-column grid", err)

    def test_target_without_refid_or_expr(self):
        d = good_dashboard()
        d["panels"][1]["targets"].append({"expr": "DCGM_FI_DEV_GPU_UTIL"})
        d["panels"][2]["targets"][0]["expr"] = ""
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("target has no refId", err)
        self.assertIn('panel 3 "p99" target A: target has no expr', err)

    def test_fixed_datasource_and_missing_variable(self):
        d = good_dashboard()
        d["panels"][1]["datasource"] = {"type": "prometheus", "uid": "PBFA97CFB590B2093"}
        d["templating"]["list"] = d["templating"]["list"][1:]
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn('panel 2 "util": datasource must be', err)
        self.assertIn("templating has no `datasource` variable", err)

    def test_undefined_dashboard_variable(self):
        d = good_dashboard()
        d["panels"][1]["targets"][0]["expr"] = 'DCGM_FI_DEV_GPU_UTIL{gpu=~"$gpu"}'
        self.write_dashboard(d)
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertIn("undefined dashboard variable $gpu", err)

    def test_histogram_families_and_gauges_named_count(self):
        self.write_rules(
            "groups:\n- name: g\n  rules:\n"
            "  - alert: Ok\n"
            "    expr: volcano_e2e_scheduling_latency_milliseconds_sum"
            " / volcano_e2e_scheduling_latency_milliseconds_count > volcano_unschedule_job_count\n"
            "  - alert: Empty\n    expr: etna_queue_pending_jobs > 0\n"
            "  - alert: Bare\n    expr: volcano_e2e_scheduling_latency_milliseconds > 1\n"
            "  - alert: NotAHistogram\n    expr: volcano_unschedule_job_bucket > 1\n")
        status, err = self.run_check()
        self.assertEqual(status, 1)
        self.assertNotIn("alert Ok", err)
        self.assertNotIn("alert Empty", err)
        self.assertIn("group g alert Bare: volcano_e2e_scheduling_latency_milliseconds is a "
                      "histogram", err)
        self.assertIn("alert NotAHistogram: unknown metric volcano_unschedule_job_bucket", err)

    def test_recorded_series_may_be_read(self):
        self.write_rules(
            "groups:\n- name: g\n  rules:\n"
            "  - record: node:gpu_util:avg\n    expr: avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)\n"
            "  - alert: Low\n    expr: node:gpu_util:avg < 10\n")
        self.assertEqual(self.run_check(), (0, ""))


class RepositoryTest(unittest.TestCase):
    def test_deploy_reads_only_the_contracts_families(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = check_exprs.main(["--metrics", EXPECTED, "--deploy", DEPLOY])
        self.assertEqual(status, 0, err.getvalue())


if __name__ == "__main__":
    unittest.main()
