#!/usr/bin/env python3
"""Per-mutant comparison of integration-mutation.sh's PIT reports: for each pair, E's mutants,
those the integration suite kills, those the union of the unit suites of R and E kills, and
those only the integration suite kills. Writes OUT/mutation/SEED/results.jsonl and prints
markdown.

    integration-mutation.py OUT SEED
"""
import glob
import importlib.util
import json
import os
import re
import sys

out, seed = sys.argv[1], sys.argv[2]
pairs = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "pairs.tsv")) if l.strip()]
root = os.path.join(out, "mutation", seed)

def mutants(side_dir):
    """(all mutants, detected ones) of the mutations.xml in side_dir, keyed by identity."""
    files = glob.glob(os.path.join(side_dir, "*-DEFAULTS.xml"))
    if not files:
        return None, None
    text = open(files[0]).read()
    every, killed = set(), set()
    for m in re.finditer(r"<mutation ([^>]*)>(.*?)</mutation>", text, re.S):
        attrs, body = m.group(1), m.group(2)
        def tag(name):
            t = re.search(rf"<{name}>(.*?)</{name}>", body, re.S)
            return t.group(1) if t else ""
        key = (tag("mutatedClass"), tag("mutatedMethod"), tag("methodDescription"),
               tag("lineNumber"), tag("mutator"), tag("indexes") or tag("index"), tag("blocks") or tag("block"))
        every.add(key)
        if re.search(r"detected=.true.", attrs):
            killed.add(key)
    return every, killed

rows = []
for k, (jar, r, e, cb) in enumerate(pairs):
    d = os.path.join(root, str(k))
    if not os.path.isdir(d):
        continue
    all_i, ki = mutants(os.path.join(d, "int"))
    all_u, ku = mutants(os.path.join(d, "unit"))
    every = (all_i or set()) | (all_u or set())
    ki, ku = ki or set(), ku or set()
    rows.append({"pair": k, "caller": r, "callee": e, "mutants": len(every),
                 "integration": len(ki), "unit": len(ku), "only_integration": len(ki - ku),
                 "only_unit": len(ku - ki), "integration_ran": all_i is not None,
                 "unit_ran": all_u is not None})
with open(os.path.join(root, "results.jsonl"), "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
spec = importlib.util.spec_from_file_location(
    "integration_seeds", os.path.join(os.path.dirname(os.path.abspath(__file__)), "integration-seeds.py"))
seeds_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seeds_module)
names = seeds_module.labels({k: (jar, r, e) for k, (jar, r, e, _) in enumerate(pairs)})
print(f"# PIT (DEFAULTS) on the callee, seed {seed}\n")
print("| pair | E's mutants | integration kills | unit R+E kills | only integration | only unit |")
print("|---|---:|---:|---:|---:|---:|")
for x in rows:
    print(f"| {names[x['pair']]} | {x['mutants']} | {x['integration']} | "
          f"{x['unit']} | {x['only_integration']} | {x['only_unit']} |")
skipped = [x for x in rows if not (x["integration_ran"] and x["unit_ran"])]
rows = [x for x in rows if x["integration_ran"] and x["unit_ran"]]
if skipped:
    print(f"\n- not compared (a side had no suite or PIT did not finish): "
          + ", ".join(names[x["pair"]] for x in skipped))
tot = sum(x["mutants"] for x in rows)
if tot:
    oi = sum(x["only_integration"] for x in rows)
    print(f"\n- pooled: {oi} of {tot} mutants ({100 * oi / tot:.1f} %) killed only by the integration suites; "
          f"integration {100 * sum(x['integration'] for x in rows) / tot:.1f} %, "
          f"unit R+E {100 * sum(x['unit'] for x in rows) / tot:.1f} %")
    shares = [x["only_integration"] / x["mutants"] for x in rows if x["mutants"]]
    print(f"- mean over {len(shares)} pairs of the share killed only by the integration suite: "
          f"{100 * sum(shares) / len(shares):.1f} %")
