#!/usr/bin/env python3
"""Summary of an A/B of two generate modes (benches/scripts/pafm-ab.sh, environment-ab.sh): per
class, the JaCoCo branch coverage of the suites of each mode over the seeds (medians),
Vargha-Delaney A12 (the technique over the baseline) and the two-sided exact Mann-Whitney p
(all splits of the pooled values, ties counted); tests/s of the search; the tests and
assertions the stability check removed; the false positives of renamed classes (PAFM).

Usage: [MODES=on,off LABEL=name] ab-summary.py OUT SEED...   (default MODES=pafm,none
LABEL=PAFM; OUT/<mode>-<seed>/ holds each run)
"""
import itertools
import json
import os
import statistics
import sys


def coverage(out, mode, seed):
    path = os.path.join(out, f"{mode}-{seed}", "coverage.jsonl")
    rows = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line:
                r = json.loads(line)
                rows[r["class"]] = r
    return rows


def report(out, mode, seed):
    path = os.path.join(out, f"{mode}-{seed}", "ferrosuite-report.json")
    if not os.path.exists(path):
        return {}
    return {c["cut"]: c for c in json.load(open(path)).get("classes", []) if "cut" in c}


def a12(x, y):
    gt = sum(1 for a in x for b in y if a > b)
    eq = sum(1 for a in x for b in y if a == b)
    return (gt + 0.5 * eq) / (len(x) * len(y)) if x and y else float("nan")


def mann_whitney_p(x, y):
    """Exact two-sided p of the rank-sum statistic over every split of the pooled values."""
    if not x or not y:
        return float("nan")
    pooled = x + y
    order = sorted(range(len(pooled)), key=lambda i: pooled[i])
    ranks = [0.0] * len(pooled)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and pooled[order[j + 1]] == pooled[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    observed = sum(ranks[: len(x)])
    mean = len(x) * (len(pooled) + 1) / 2
    extreme = 0
    total = 0
    for combo in itertools.combinations(range(len(pooled)), len(x)):
        s = sum(ranks[c] for c in combo)
        total += 1
        if abs(s - mean) >= abs(observed - mean) - 1e-9:
            extreme += 1
    return extreme / total


def pct(c, t):
    return 100.0 * c / t if t else 100.0


ON, OFF = os.environ.get("MODES", "pafm,none").split(",")
LABEL = os.environ.get("LABEL", "PAFM")


def main():
    out, seeds = sys.argv[1], sys.argv[2:]
    cov = {m: {s: coverage(out, m, s) for s in seeds} for m in (ON, OFF)}
    # A class without a test class (or whose tests did not compile) covers nothing of the
    # branches the other runs counted.
    totals = {}
    for m in cov.values():
        for rows in m.values():
            for c, r in rows.items():
                totals[c] = max(totals.get(c, 0), r["branches"])
    rep = {m: {s: report(out, m, s) for s in seeds} for m in (ON, OFF)}
    classes = []
    for s in seeds:
        for c in cov[ON][s]:
            if c not in classes:
                classes.append(c)
    print(f"# {LABEL} A/B: {len(classes)} classes, seeds {' '.join(seeds)}\n")
    print(f"JaCoCo branch coverage of the emitted suites (median over the seeds); A12 of {LABEL} over")
    print("plain and the exact two-sided Mann-Whitney p.\n")
    print(f"| class | branches | plain | {LABEL} | A12 | p | tests/s plain | tests/s {LABEL} |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    med_plain, med_pafm, better, worse = [], [], 0, 0
    for c in classes:
        vals = {}
        total = 0
        for m in (ON, OFF):
            vals[m] = []
            for s in seeds:
                r = cov[m][s].get(c)
                if r is None:
                    continue
                total = totals.get(c, 0)
                vals[m].append(pct(r["branches_covered"], total))
        speeds = {}
        for m in (ON, OFF):
            rates = [
                r["tests_executed"] / r["search_seconds"]
                for r in (rep[m][s].get(c) for s in seeds)
                if r and r.get("search_seconds") and r.get("tests_executed")
            ]
            speeds[m] = statistics.median(rates) if rates else float("nan")
        mp = statistics.median(vals[OFF]) if vals[OFF] else float("nan")
        mf = statistics.median(vals[ON]) if vals[ON] else float("nan")
        med_plain.append(mp)
        med_pafm.append(mf)
        a = a12(vals[ON], vals[OFF])
        p = mann_whitney_p(vals[ON], vals[OFF])
        if p < 0.05:
            better += a > 0.5
            worse += a < 0.5
        print(f"| {c} | {total} | {mp:.1f} % | {mf:.1f} % | {a:.2f} | {p:.3f} | {speeds[OFF]:.0f} | {speeds[ON]:.0f} |")
    if classes:
        print(f"\nMean of the medians: plain {statistics.mean(med_plain):.1f} %, {LABEL} "
              f"{statistics.mean(med_pafm):.1f} %; significantly better with {LABEL} (p < 0.05): "
              f"{better}, worse: {worse}.\n")
        print("Removed by the stability check, summed over classes and seeds:\n")
        print("| mode | tests found | tests unstable | assertions unstable | tests failing validation |")
        print("|---|---:|---:|---:|---:|")
        for m, name in ((OFF, "plain"), (ON, LABEL)):
            rows = [r for s in seeds for r in rep[m][s].values()]
            total = lambda k: sum(r.get(k, 0) for r in rows)
            print(f"| {name} | {total('tests_found')} | {total('tests_unstable')} | "
                  f"{total('assertions_unstable')} | {total('tests_failing')} |")
        print()
    path = os.path.join(out, "renamed", "results.jsonl")
    if os.path.exists(path):
        rows = [json.loads(l) for l in open(path) if l.strip()]
        print("False positives: the PAFM suites of the first seed against each class with one private")
        print("field and one private method renamed.\n")
        print("| class | renamed | tests | failed | skipped | private accesses | mocks |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for r in rows:
            failed = r.get("failures", 0) + r.get("errors", 0)
            print(f"| {r['class']} | {r.get('renamed', '')} | {r.get('tests', 0)} | {failed} | "
                  f"{r.get('skipped', 0)} | {r.get('private_accesses', 0)} | {r.get('mocks', 0)} |")
        print(f"\nIn all: {sum(r.get('tests', 0) for r in rows)} tests, "
              f"{sum(r.get('failures', 0) + r.get('errors', 0) for r in rows)} failed, "
              f"{sum(r.get('skipped', 0) for r in rows)} skipped.")


if __name__ == "__main__":
    main()
