#!/usr/bin/env python3
"""Recording benchmark (issue 35): real programs from Debian's packages run plain and under
`ferrosuite record`, RUNS times each, alternating; per program the median wall time of both, the
slowdown (ratio of the medians), whether the output and exit code were the same, and what the
recording stored (calls, store size, write rate, what was skipped).

    benches/scripts/record-programs.py OUT [PROGRAM...]
    BIN=target/release/ferrosuite RUNS=3 benches/scripts/record-programs.py /tmp/rec rhino jflex

Programs (Debian packages rhino, jflex, javacc, bsh; workloads in benches/workloads):
rhino (its shell running rhino.js), jflex (generating the scanner of its Java example
grammar), javacc (generating the parser of calc.jj), bsh (BeanShell running work.bsh).
With RECORD=0 the runs are skipped and the stores already in OUT are carved again.
Then (unless CARVE=0) `ferrosuite carve` on the last run's store: the share of recorded calls
that got a passing test (validated: compiled, passing, and passing RERUNS=2 more runs), and
how many recorded calls read the environment or changed files and how many carved tests set the
environment up or check files after the call.
Writes OUT/<program>.db (the last run's store is kept), OUT/<program>-carved/, OUT/results.jsonl
and OUT/summary.md.
"""

import glob
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WL = os.path.join(ROOT, "benches", "workloads")
J = "/usr/share/java"


def programs(tmp):
    return {
        "rhino": {
            "classpath": f"{J}/rhino.jar",
            "include": ["org.mozilla.javascript"],
            "exclude": ["org.mozilla.javascript.gen"],
            "command": ["java", "-cp", f"{J}/rhino.jar", "org.mozilla.javascript.tools.shell.Main",
                        os.path.join(WL, "rhino.js")],
        },
        "jflex": {
            "classpath": f"{J}/jflex.jar",
            "include": ["jflex"],
            "exclude": [],
            "command": ["java", "-jar", f"{J}/jflex.jar", "-q", "-d", os.path.join(tmp, "jflex-out"),
                        "/usr/share/doc/jflex/examples/java/java.flex"],
        },
        "javacc": {
            "classpath": f"{J}/javacc.jar",
            "include": ["org.javacc"],
            "exclude": [],
            "command": ["java", "-cp", f"{J}/javacc.jar", "javacc",
                        "-OUTPUT_DIRECTORY=" + os.path.join(tmp, "javacc-out"), os.path.join(WL, "calc.jj")],
        },
        "bsh": {
            "classpath": f"{J}/bsh.jar",
            "include": ["bsh"],
            "exclude": [],
            "command": ["java", "-cp", f"{J}/bsh.jar", "bsh.Interpreter", os.path.join(WL, "work.bsh")],
        },
    }


def timed(cmd, out):
    # Generators write into OUT/*-out: start each run from nothing, so that both runs print the
    # same thing.
    for d in ("jflex-out", "javacc-out"):
        shutil.rmtree(os.path.join(out, d), ignore_errors=True)
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True)
    return time.monotonic() - t, p


ENV_READS = ("clock", "random_double", "random_seed", "file", "console")
SETUP = re.compile(r"Environment\.(setTime|nextRandoms|nextSeeds|writeFile|writeFileBase64|makeDirectory|consoleInput)\(")


def environment_counts(store, carved):
    """Recorded calls (methods) that read the environment or changed files, and carved tests
    that set the environment up or check files after the call."""
    db = sqlite3.connect(store)
    run = db.execute("SELECT max(run) FROM calls").fetchone()[0]

    def calls(kinds):
        marks = ",".join("?" * len(kinds))
        return db.execute(
            f"SELECT count(DISTINCT e.call) FROM events e JOIN calls c ON c.run = e.run AND c.id = e.call "
            f"WHERE e.run = ? AND c.kind = 'method' AND e.kind IN ({marks})", (run, *kinds)).fetchone()[0]
    out = {"calls_reading": calls(ENV_READS), "calls_writing": calls(("file_after",)),
           "tests_set_up": 0, "tests_checking_files": 0}
    for f in glob.glob(os.path.join(carved, "**", "*.java"), recursive=True):
        for block in open(f, encoding="utf-8").read().split("@Test")[1:]:
            out["tests_set_up"] += bool(SETUP.search(block))
            out["tests_checking_files"] += "Environment.readFile" in block
    db.close()
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    progs = programs(out)
    names = sys.argv[2:] or list(progs)
    runs = int(os.environ.get("RUNS", "3"))
    binary = os.environ.get("BIN", os.path.join(ROOT, "target", "release", "ferrosuite"))
    results = []
    for name in names:
        p = progs[name]
        plain, recorded, summaries, same = [], [], [], True
        store = os.path.join(out, f"{name}.db")
        if os.environ.get("RECORD", "1") == "0":
            old = {}
            for line in open(os.path.join(out, "results.jsonl")):
                r = json.loads(line)
                if r["program"] == name:
                    old = r
            plain, recorded, same = [old.get("plain_s", 0)], [old.get("recorded_s", 0)], old.get("same_output_and_exit")
            summaries = [{"exit_code": old.get("exit_code"), "classes": old.get("classes"), "methods": old.get("methods"),
                          "methods_called": old.get("methods_called"), "calls": old.get("calls"), "skipped": old.get("skipped"),
                          "truncated_calls": old.get("truncated_calls"), "trace_bytes": old.get("trace_mib", 0) * 2**20,
                          "store_bytes": old.get("store_mib", 0) * 2**20, "store_calls_per_s": old.get("store_calls_per_s"),
                          "failed_classes": old.get("failed_classes")}]
        for k in range(runs if os.environ.get("RECORD", "1") != "0" else 0):
            t, a = timed(p["command"], out)
            plain.append(t)
            if os.path.exists(store):
                os.remove(store)
            cmd = [binary, "record", "--store", store, "--json"]
            for i in p["include"]:
                cmd += ["--include", i]
            for e in p["exclude"]:
                cmd += ["--exclude", e]
            t, b = timed(cmd + ["--"] + p["command"], out)
            recorded.append(t)
            if a.stdout != b.stdout or a.returncode != b.returncode:
                same = False
            err = b.stderr.decode("utf-8", "replace")
            # The summary is the last JSON object on standard error (the program may write there too).
            at = err.rfind("\n{\n")
            try:
                summaries.append(json.loads(err[at + 1:] if at >= 0 else err))
            except ValueError:
                summaries.append({"error": b.stderr.decode("utf-8", "replace")[-2000:]})
        s = summaries[-1]
        carved = {}
        if os.environ.get("CARVE", "1") != "0":
            dest = os.path.join(out, f"{name}-carved")
            shutil.rmtree(dest, ignore_errors=True)
            t = time.monotonic()
            c = subprocess.run([binary, "carve", "--store", store, "-c", p["classpath"], "-o", dest,
                                "--reruns", os.environ.get("RERUNS", "2"), "--json"], capture_output=True)
            try:
                carved = json.loads(c.stdout)
                carved["seconds"] = time.monotonic() - t
            except ValueError:
                carved = {"error": c.stderr.decode("utf-8", "replace")[-2000:]}
            if os.path.exists(store):
                carved["environment"] = environment_counts(store, dest)
        row = {
            "program": name,
            "runs": runs,
            "plain_s": statistics.median(plain),
            "recorded_s": statistics.median(recorded),
            "slowdown": statistics.median(recorded) / statistics.median(plain),
            "same_output_and_exit": same,
            "exit_code": s.get("exit_code"),
            "classes": s.get("classes"),
            "methods": s.get("methods"),
            "methods_called": s.get("methods_called"),
            "calls": s.get("calls"),
            "skipped": s.get("skipped"),
            "truncated_calls": s.get("truncated_calls"),
            "trace_mib": (s.get("trace_bytes") or 0) / 2**20,
            "store_mib": (s.get("store_bytes") or 0) / 2**20,
            "store_calls_per_s": s.get("store_calls_per_s"),
            "failed_classes": s.get("failed_classes"),
            "carve": {k: carved.get(k) for k in ("calls", "carved_calls", "merged", "passing", "calls_with_passing_test", "skipped", "seconds", "environment", "error")},
        }
        results.append(row)
        print(json.dumps(row), flush=True)
    with open(os.path.join(out, "results.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    lines = ["| program | plain (s) | recorded (s) | slowdown | same output | calls stored | repeats | unfinished | dropped | store (MiB) | calls/s written | calls (carving) | passing tests | calls with a passing test |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        sk = r["skipped"] or {}
        lines.append(
            f"| {r['program']} | {r['plain_s']:.2f} | {r['recorded_s']:.2f} | {r['slowdown']:.1f}x | "
            f"{'yes' if r['same_output_and_exit'] else 'NO'} | {r['calls']} | {sk.get('repeats')} | "
            f"{sk.get('unfinished')} | {sk.get('dropped')} | {r['store_mib']:.1f} | {r['store_calls_per_s'] or 0:.0f} | "
            f"{r['carve'].get('calls')} | {r['carve'].get('passing')} | "
            f"{(100.0 * (r['carve'].get('calls_with_passing_test') or 0) / max(1, r['carve'].get('calls') or 0)):.1f} % |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    print(text)
    shutil.rmtree(os.path.join(out, "jflex-out"), ignore_errors=True)
    shutil.rmtree(os.path.join(out, "javacc-out"), ignore_errors=True)


if __name__ == "__main__":
    main()
