#!/usr/bin/env python3
"""Summary of several seeds of benches/scripts/integration-ab.sh: per pair the median CBC over the
seeds of the integration suite and of the unit suites of the caller R and the callee E,
Vargha-Delaney A12 of the integration suite over R's unit suite with the exact two-sided
Mann-Whitney p (from ab-summary.py), and per seed the mean CBC over pairs of each suite (a suite
that was not generated counts 0, as one covering nothing).

    integration-seeds.py RESULTS.jsonl...
    integration-seeds.py benches/results/integration-ab-seed*/results.jsonl

Each RESULTS.jsonl is the results.jsonl integration-ab-summary.py wrote for one run directory.
Pairs are matched by their index in pairs.tsv and must name the same caller and callee in every
file. Prints markdown.
"""
import importlib.util
import json
import os
import statistics
import sys

KINDS = ["integration", "unit-caller", "unit-callee"]


def stats_module():
    """ab-summary.py, for its a12 and mann_whitney_p."""
    sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ab-summary.py")
    spec = importlib.util.spec_from_file_location("ab_summary", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def labels(pairs):
    """Per pair `jar: R → E` with the shortest dotted suffixes that keep the labels apart."""
    for depth in range(1, 8):
        cut = lambda c: ".".join(c.split(".")[-depth:])
        out = {k: f"{jar}: {cut(r)} → {cut(e)}" for k, (jar, r, e) in pairs.items()}
        if len(set(out.values())) == len(out):
            return out
    return {k: f"{jar}: {r} → {e}" for k, (jar, r, e) in pairs.items()}


def main():
    files = sys.argv[1:]
    if not files:
        sys.exit(__doc__)
    stats = stats_module()
    pairs, totals, cbc = {}, {}, {}
    for path in files:
        for line in open(path):
            if not line.strip():
                continue
            row = json.loads(line)
            k, seed = row["pair"], row["seed"]
            key = (row["jar"], row["caller"], row["callee"])
            if pairs.setdefault(k, key) != key:
                sys.exit(f"{path}: pair {k} is {key}, elsewhere {pairs[k]}")
            totals[k] = row["total"]
            value = row["covered"] / row["total"] if row["total"] else 0.0
            cbc[(k, row["kind"], seed)] = value
    seeds = sorted({s for (_, _, s) in cbc})
    names = labels(pairs)
    print(f"# Coupled-branch coverage over seeds {', '.join(map(str, seeds))}: {len(pairs)} pairs\n")
    print("| pair | coupled | integration | unit R | unit E | Â12 vs R | p |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    ahead = level = behind = significant = 0
    medians = {kind: [] for kind in KINDS}
    for k in sorted(pairs):
        values = {kind: [cbc.get((k, kind, s), 0.0) for s in seeds] for kind in KINDS}
        cells = []
        for kind in KINDS:
            m = statistics.median(values[kind])
            medians[kind].append(m)
            cells.append(f"{100 * m:.1f} %")
        a = stats.a12(values["integration"], values["unit-caller"])
        p = stats.mann_whitney_p(values["integration"], values["unit-caller"])
        ahead += a > 0.5
        level += a == 0.5
        behind += a < 0.5
        significant += p < 0.05 and a > 0.5
        star = "*" if p < 0.05 else ""
        print(f"| {names[k]} | {totals[k]} | {' | '.join(cells)} | {a:.2f} | {p:.3f}{star} |")
    print()
    for kind in KINDS:
        print(f"- {kind}: mean of the per-pair medians {100 * statistics.mean(medians[kind]):.1f} %")
    for s in seeds:
        means = [statistics.mean(cbc.get((k, kind, s), 0.0) for k in pairs) for kind in KINDS]
        print(f"- seed {s}: means over pairs " + ", ".join(f"{kind} {100 * m:.1f} %"
                                                    for kind, m in zip(KINDS, means)))
    print(f"- integration over R's unit suite: Â12 > 0.5 in {ahead} pairs ({significant} with "
          f"p < 0.05), 0.5 in {level}, below in {behind}")


if __name__ == "__main__":
    main()
