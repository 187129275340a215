#!/usr/bin/env python3
"""Summary of a suite-quality A/B (benches/scripts/quality-ab.sh): per class and mode the medians
over the seeds of the PIT scores (DEFAULTS, OLD_DEFAULTS), JaCoCo branch coverage, tests,
assertions, and the shares of tests with no assertion, with only an expected exception and with
non-public library classes; the means over the classes; the reruns under another zone, locale,
charset and without class-data sharing.

Usage: quality-summary.py OUT "MODE..." SEED...
"""
import json
import os
import re
import statistics
import sys


def rows(path, key=lambda r: r["class"]):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                out[key(r)] = r
    return out


def metrics(d):
    cov = rows(os.path.join(d, "coverage.jsonl"))
    pit = rows(os.path.join(d, "mutation.jsonl"), key=lambda r: (r["class"], r["mutators"]))
    qual = rows(os.path.join(d, "quality.jsonl"))
    m = {}
    for cls, q in qual.items():
        c = cov.get(cls, {})
        r = {}
        if c.get("branches"):
            r["branches"] = 100.0 * c["branches_covered"] / c["branches"]
        for group in ("DEFAULTS", "OLD_DEFAULTS"):
            p = pit.get((cls, group))
            if p and p.get("mutants"):
                r[group] = 100.0 * p["killed"] / p["mutants"]
        if q.get("found"):
            t = q["tests"]
            r["tests"] = t
            r["assertions"] = q["assertions"]
            if t:
                r["no_assertion"] = 100.0 * q["no_assertion"] / t
                r["exception_only"] = 100.0 * q["exception_only"] / t
                r["non_public"] = 100.0 * q["non_public"] / t
        m[cls] = r
    return m


def rerun(d):
    path = os.path.join(d, "rerun.txt")
    if not os.path.exists(path):
        return "missing"
    # The console prints no summary when every test passed; the XML report has the counts.
    xml = os.path.join(d, "rerun", "report", "TEST-junit-jupiter.xml")
    if os.path.exists(xml):
        head = open(xml).read(4096)
        counts = {k: int(v) for k, v in re.findall(r'(tests|failures|errors|skipped)="(\d+)"', head)}
        if "tests" in counts:
            return counts
    found = {}
    for line in open(path):
        # The counts as benches/results keeps them (the XML report is not committed).
        kept = dict(re.findall(r"'(tests|failures|errors|skipped)': '(\d+)'", line))
        if "tests" in kept:
            return {k: int(v) for k, v in kept.items()}
        # The same counts as quality-ab.sh writes them at the end of rerun.txt.
        if line.startswith("counts: "):
            return {k: int(v) for k, v in re.findall(r"(tests|failures|errors|skipped) (\d+)", line)}
        g = re.search(r"(\d+) tests (successful|failed|aborted)", line)
        if g:
            found[g.group(2)] = int(g.group(1))
    return found


COLUMNS = [("DEFAULTS", "PIT DEFAULTS %"), ("OLD_DEFAULTS", "PIT OLD_DEFAULTS %"),
           ("branches", "JaCoCo branches %"), ("tests", "tests"), ("assertions", "assertions"),
           ("no_assertion", "no assertion %"), ("exception_only", "exception only %"),
           ("non_public", "non-public %")]


def fmt(v):
    return "–" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def suiteless(d):
    """The classes the run wrote no test class for (their coverage rows say so)."""
    return {cls for cls, c in rows(os.path.join(d, "coverage.jsonl")).items() if not c.get("compiled")}


def pit_rows(d):
    """(class, group) -> a run's PIT row."""
    return rows(os.path.join(d, "mutation.jsonl"), key=lambda r: (r["class"], r["mutators"]))


def main():
    out, modes, seeds = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
    # Only the runs evaluated so far (a PIT report written).
    runs = {mode: [s for s in seeds if os.path.exists(os.path.join(out, f"{mode}-{s}", "quality.jsonl"))]
            for mode in modes}
    data = {mode: {s: metrics(os.path.join(out, f"{mode}-{s}")) for s in runs[mode]} for mode in modes}
    classes = sorted({c for mode in modes for run in data[mode].values() for c in run})
    # A class that got no suite in a run kills nothing and covers nothing there: its mutant
    # and branch counts come from the runs that did test it (PIT's mutants and JaCoCo's
    # branches depend on the class, not on the tests).
    pit = {(mode, s): pit_rows(os.path.join(out, f"{mode}-{s}")) for mode in modes for s in runs[mode]}
    without = {(mode, s): suiteless(os.path.join(out, f"{mode}-{s}")) for mode in modes for s in runs[mode]}
    mutants, branches = {}, {}
    for mode in modes:
        for s in runs[mode]:
            d = os.path.join(out, f"{mode}-{s}")
            for (cls, group), r in pit[(mode, s)].items():
                if r["mutants"]:
                    mutants[(cls, group)] = r["mutants"]
            for cls, c in rows(os.path.join(d, "coverage.jsonl")).items():
                if c.get("branches"):
                    branches[cls] = c["branches"]
    missing = []
    for mode in modes:
        for s in runs[mode]:
            for cls in classes:
                if cls in without[(mode, s)]:
                    missing.append(f"{cls.rsplit('.', 1)[-1]} ({mode} seed {s})")
                    r = data[mode][s].setdefault(cls, {})
                    for group in ("DEFAULTS", "OLD_DEFAULTS"):
                        # Only where PIT ran on the run's suites: a run not yet evaluated
                        # has no score, not a zero.
                        if (cls, group) in mutants and pit[(mode, s)]:
                            r[group] = 0.0
                    if cls in branches:
                        r["branches"] = 0.0
                    r["tests"] = 0
                    r["assertions"] = 0
    med = {}
    for mode in modes:
        for cls in classes:
            for key, _ in COLUMNS:
                vals = [run[cls][key] for run in data[mode].values() if cls in run and key in run[cls]]
                if vals:
                    v = statistics.median(vals)
                    med[(mode, cls, key)] = float(v) if key not in ("tests", "assertions") else v
    print(f"Suite quality: medians over the seeds per class, then the means of the medians over")
    print("the classes; seeds evaluated: " + "; ".join(f"{m} {' '.join(runs[m]) or 'none'}" for m in modes) + ".")
    if missing:
        print("No suite (counted as 0 % killed and covered): " + ", ".join(missing) + ".")
    # A suite PIT did not measure (its run failed) is not a suite that killed nothing.
    failed = [f"{cls.rsplit('.', 1)[-1]} {group} ({mode} seed {s})"
              for mode in modes for s in runs[mode]
              for (cls, group), r in pit[(mode, s)].items()
              if r.get("compiled") and not r.get("mutants")]
    if failed:
        print("PIT reported nothing (left out of that run's figures): " + ", ".join(failed) + ".")
    print()
    print("| class | mode | " + " | ".join(h for _, h in COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for cls in classes:
        for mode in modes:
            cells = [fmt(med.get((mode, cls, k))) for k, _ in COLUMNS]
            print(f"| {cls.rsplit('.', 1)[-1]} | {mode} | " + " | ".join(cells) + " |")
    for mode in modes:
        cells = []
        for key, _ in COLUMNS:
            vals = [med[(mode, c, key)] for c in classes if (mode, c, key) in med]
            cells.append(fmt(statistics.mean(vals) * 1.0) if vals else "–")
        print(f"| **mean** | {mode} | " + " | ".join(cells) + " |")
    # Per seed: the pooled PIT score (killed over all mutants of the classes) and the means
    # over the classes, so that the spread between seeds shows.
    print("\nPer seed: pooled PIT score (all mutants of all classes; no suite = none killed),")
    print("mean of the class scores, mean JaCoCo branch coverage, tests, assertions:\n")
    print("| mode | seed | pooled DEFAULTS | pooled OLD_DEFAULTS | mean DEFAULTS % | mean OLD_DEFAULTS % | mean branches % | tests | assertions |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mode in modes:
        for s in runs[mode]:
            counts = {key: (r["killed"], r["mutants"]) for key, r in pit[(mode, s)].items()}
            cells = []
            for group in ("DEFAULTS", "OLD_DEFAULTS"):
                measured = [c for c in classes
                            if counts.get((c, group), (0, 0))[1] or c in without[(mode, s)]]
                k = sum(counts.get((c, group), (0, 0))[0] for c in measured)
                t = sum(mutants.get((c, group), 0) for c in measured)
                cells.append(f"{k}/{t} ({k / t:.3f})" if t and pit[(mode, s)] else "–")
            run = data[mode][s]
            for key in ("DEFAULTS", "OLD_DEFAULTS", "branches"):
                vals = [run[c][key] for c in classes if c in run and key in run[c]]
                cells.append(fmt(statistics.mean(vals)) if vals else "–")
            for key in ("tests", "assertions"):
                cells.append(str(sum(run[c].get(key, 0) for c in classes if c in run)))
            print(f"| {mode} | {s} | " + " | ".join(cells) + " |")
    print("\nReruns of every suite under Pacific/Chatham, tr-TR, ISO-8859-1 and -Xshare:off:\n")
    for mode in modes:
        for s in seeds:
            print(f"- {mode} seed {s}: {rerun(os.path.join(out, f'{mode}-{s}'))}")


if __name__ == "__main__":
    main()
