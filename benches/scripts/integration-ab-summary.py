#!/usr/bin/env python3
"""Summary of benches/scripts/integration-ab.sh: per pair the mean CBC of the integration suite
and of the unit suites of the caller and of the callee over the seeds run, and the means over
pairs (a pair whose suite was not generated counts 0 for that suite, as a suite covering
nothing). Writes OUT/results.jsonl and prints markdown.

    integration-ab-summary.py OUT
"""
import json
import os
import statistics
import sys

out = sys.argv[1]
pairs = [line.rstrip("\n").split("\t") for line in open(os.path.join(out, "pairs.tsv")) if line.strip()]
kinds = ["integration", "unit-caller", "unit-callee"]
rows = []
for seed in sorted(d for d in os.listdir(out) if d.isdigit()):
    for k, (jar, r, e, cb) in enumerate(pairs):
        for kind in kinds:
            path = os.path.join(out, seed, f"{k}-{kind}", "ferrosuite-report.json")
            if not os.path.exists(path):
                continue
            report = json.load(open(path))
            entry = (report.get("classes") or [{}])[0]
            c = entry.get("coupled_branches") or entry.get("coupled") or {}
            rows.append({
                "pair": k, "jar": jar, "caller": r, "callee": e, "seed": int(seed), "kind": kind,
                "status": entry.get("status", "crashed"), "error": entry.get("error"),
                "covered": c.get("covered", 0), "total": c.get("total", int(cb)),
                "tests": entry.get("tests_emitted", 0),
            })
with open(os.path.join(out, "results.jsonl"), "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")

def cbc(row):
    return row["covered"] / row["total"] if row["total"] else 0.0

seeds = sorted({r["seed"] for r in rows})
print(f"# Coupled-branch coverage: {len(pairs)} pairs, seeds {', '.join(map(str, seeds))}\n")
print("| pair | coupled | integration | unit R | unit E | integration tests |")
print("|---|---:|---:|---:|---:|---:|")
means = {kind: [] for kind in kinds}
for k, (jar, r, e, cb) in enumerate(pairs):
    cells = []
    for kind in kinds:
        mine = [cbc(x) for x in rows if x["pair"] == k and x["kind"] == kind]
        if mine:
            m = statistics.mean(mine)
            means[kind].append(m)
            cells.append(f"{100 * m:.1f} %")
        else:
            cells.append("-")
    tests = [x["tests"] for x in rows if x["pair"] == k and x["kind"] == "integration"]
    short = lambda c: c.rsplit(".", 1)[-1]
    print(f"| {jar}: {short(r)} → {short(e)} | {cb} | {' | '.join(cells)} | "
          f"{statistics.median(tests) if tests else '-'} |")
print()
for kind in kinds:
    v = means[kind]
    if v:
        print(f"- {kind}: mean CBC over {len(v)} pairs {100 * statistics.mean(v):.1f} %")
failed = [x for x in rows if x["status"] not in ("generated", "no tests")]
print(f"- runs without a suite: {len(failed)} of {len(rows)}")
for x in failed[:20]:
    print(f"  - {x['kind']} {x['caller']} -> {x['callee']} seed {x['seed']}: {x['status']}: {(x['error'] or '')[:160]}")
