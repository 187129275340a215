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


def main():
    out, modes, seeds = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
    data = {mode: [metrics(os.path.join(out, f"{mode}-{s}")) for s in seeds] for mode in modes}
    classes = sorted({c for mode in modes for run in data[mode] for c in run})
    med = {}
    for mode in modes:
        for cls in classes:
            for key, _ in COLUMNS:
                vals = [run[cls][key] for run in data[mode] if cls in run and key in run[cls]]
                if vals:
                    v = statistics.median(vals)
                    med[(mode, cls, key)] = float(v) if key not in ("tests", "assertions") else v
    print(f"Suite quality, seeds {' '.join(seeds)}: medians over the seeds per class; the last rows")
    print("are the means of the medians over the classes.\n")
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
    print("\nReruns of every suite under Pacific/Chatham, tr-TR, ISO-8859-1 and -Xshare:off:\n")
    for mode in modes:
        for s in seeds:
            print(f"- {mode} seed {s}: {rerun(os.path.join(out, f'{mode}-{s}'))}")


if __name__ == "__main__":
    main()
