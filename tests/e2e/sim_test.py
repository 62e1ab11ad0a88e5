#!/usr/bin/env python3
"""The time-aware simulator from the command line, as an operator would use it.

A synthetic bursty-against-steady trace is replayed with fair share over time off and on
(examples/sim); the same inputs give byte-identical outputs; with decay on the steady queue's p90
wait falls, and `etna sim compare` shows it. The report's plots are checked to exist and hold the
expected series, and headless Chromium renders it; its screenshot is saved in ARTIFACTS_DIR.
openb's default trace replays with its timestamps.

Usage: sim_test.py ETNA_BINARY SOURCE_DIR ARTIFACTS_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402


def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, f"{args}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


def series_points(html, series):
    m = re.search(r'data-series="%s" points="([^"]*)"' % re.escape(series), html)
    assert m, f"no series {series} in the report"
    return len(m.group(1).split())


def main():
    etna, source, artifacts = sys.argv[1:4]
    os.makedirs(artifacts, exist_ok=True)
    examples = os.path.join(source, "examples", "sim")
    work = tempfile.mkdtemp(prefix="etna-sim-")
    try:
        trace = os.path.join(work, "bursty-steady.csv")
        run(etna, "sim", "generate", "--shape", "bursty-steady", "--days", "3", "--gpus", "16",
            "--out", trace)
        outs = {}
        for mode in ("off", "on", "on-again"):
            conf = os.path.join(examples, "fairshare-%s.conf" % mode.split("-")[0])
            outs[mode] = os.path.join(work, mode)
            line = run(etna, "sim", "replay", "--trace", trace, "--conf", conf,
                       "--queues", os.path.join(examples, "bursty-steady-queues.yaml"),
                       "--cluster", os.path.join(examples, "cluster-16.yaml"),
                       "--sample", "30m", "--out", outs[mode])
            assert re.search(r"^SIM trace=bursty-steady jobs=(\d+) started=\1 finished=\1 ",
                             line), line
        for name in ("jobs.csv", "series.csv", "report.html"):
            with open(os.path.join(outs["on"], name), "rb") as a, \
                    open(os.path.join(outs["on-again"], name), "rb") as b:
                assert a.read() == b.read(), f"{name} differs between two runs of the same inputs"

        report_dir = os.path.join(work, "compare")
        summary = run(etna, "sim", "compare", outs["off"], outs["on"], "--labels",
                      "decay off,decay on", "--title", "bursty against steady", "--out", report_dir)
        p90 = {}
        for m in re.finditer(r"^(decay \w+) (\w+) jobs=\d+ wait_p50_s=\d+ wait_p90_s=(\d+)",
                             summary, re.M):
            p90[(m.group(1), m.group(2))] = int(m.group(3))
        assert ("decay on", "steady") in p90, summary
        assert p90[("decay on", "steady")] < p90[("decay off", "steady")], summary
        print(summary)

        with open(os.path.join(report_dir, "report.html")) as f:
            html = f.read()
        assert "<script" not in html and "http" not in html.replace(
            "http://www.w3.org/2000/svg", ""), "the report must be readable offline"
        for run_id in ("A", "B"):
            for queue in ("steady", "bursty"):
                for chart in ("wait-cdf", "jct-cdf", "allocated", "deserved"):
                    assert series_points(html, f"{chart}:{queue}:{run_id}") >= 2
            for chart in ("utilization", "jain"):
                assert series_points(html, f"{chart}:*:{run_id}") >= 10

        shutil.copy(os.path.join(report_dir, "report.html"), os.path.join(artifacts, "report.html"))
        with Browser() as b:
            page = b.open("file://" + os.path.join(report_dir, "report.html"))
            assert page.eval("document.querySelectorAll('svg.chart').length") == 6
            assert page.eval("document.querySelectorAll('table tr').length") == 5
            page.screenshot(os.path.join(artifacts, "report.png"))
            assert page.console == [], page.console
        assert os.path.getsize(os.path.join(artifacts, "report.png")) > 10000

        # What the replay cannot honour is refused by name.
        def refused(code, *args):
            r = subprocess.run([etna, "sim"] + list(args), capture_output=True, text=True,
                               timeout=60)
            assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
            return r.stderr
        assert "--openb-queues qos" in refused(1, "replay", "--trace", trace, "--openb-queues",
                                               "qos", "--out", os.path.join(work, "x"))
        assert "--seed" in refused(2, "generate", "--shape", "bursty-steady", "--seed", "7")
        windowed = os.path.join(work, "windowed.yaml")
        with open(windowed, "w") as f:
            f.write("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n"
                    "metadata: {name: steady}\nspec:\n  weight: 1\n  timePolicies:\n"
                    "  - {weekdays: \"1-5\", hours: \"9-18\"}\n")
        assert "spec.timePolicies is not simulated" in refused(
            1, "replay", "--trace", trace, "--queues", windowed, "--cluster",
            os.path.join(examples, "cluster-16.yaml"), "--out", os.path.join(work, "x"))

        openb_data = os.path.join(source, "testdata", "openb")
        line = run(etna, "sim", "replay", "--trace",
                   os.path.join(openb_data, "openb_pod_list_default.csv"),
                   "--openb-queues", "qos", "--queues", os.path.join(examples, "openb-queues.yaml"),
                   "--cluster", os.path.join(openb_data, "openb_node_list_gpu_node.csv"),
                   "--out", os.path.join(work, "openb"))
        assert re.search(r"jobs=8152 started=8152 finished=8152 virtual_days=149\.34 ", line), line
        with open(os.path.join(work, "openb", "report.html")) as f:
            openb = f.read()
        for queue in ("ls", "be", "burstable", "guaranteed"):
            assert series_points(openb, f"allocated:{queue}:A") >= 100
        print("sim_test: ok")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
