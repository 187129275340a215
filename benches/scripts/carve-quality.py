#!/usr/bin/env python3
"""What carved tests are worth (issue 35): JaCoCo coverage of the carved suites against the
coverage of the recorded program run, and the PIT mutants of the traced classes they kill.

    benches/scripts/carve-quality.py OUT [PROGRAM...]
    PIT=0 benches/scripts/carve-quality.py /tmp/rec jflex bsh

OUT is the directory of benches/scripts/record-programs.py (OUT/<program>.db, the store of the
recorded run, and OUT/<program>-carved/, the carved and validated tests). Per program:

1. the original run: the program's command (the same workload as the recording) under JaCoCo's
   agent, without ferrosuite, JaCoCo restricted to the recorded classes (record's --include and
   --exclude);
2. the carved tests: compiled with javac, run with the JUnit Platform console launcher under
   JaCoCo's agent (in a scratch directory, so that a test writing files writes there);
3. coverage compared per line over the program jar's included classes (lines with debug
   information, JaCoCo's analysis through fixtures/tools JacocoDump): lines, instructions,
   branches and methods covered by the run, by the carved tests, and the lines both cover;
4. unless PIT=0, PIT (DEFAULTS mutators, scripts/pit/pom.xml) on the traced classes (the classes
   with a recorded call in the store) with the carved tests; PIT_TIMEOUT (default 45m) bounds it.

With ANALYSE_ONLY=1 nothing is run: the execution data and PIT reports already in
OUT/quality/<program>/ are analysed again.
Writes OUT/quality/<program>/... and OUT/quality/results.jsonl, prints a markdown table.
Instructions are JaCoCo's bytecode instruction counters: the measure for jars built without line
numbers (Debian's bsh.jar has none).
"""

import glob
import importlib.util
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
J = "/usr/share/java"
JACOCO_CP = ":".join(f"{J}/{j}" for j in ("org.jacoco.core.jar", "asm.jar", "asm-commons.jar", "asm-tree.jar"))
MOCKITO_CP = os.environ.get("MOCKITO_CP", ":".join(
    f"{J}/{j}" for j in ("mockito-core.jar", "byte-buddy.jar", "byte-buddy-agent.jar", "objenesis.jar")))


def load_programs(out):
    spec = importlib.util.spec_from_file_location("record_programs", os.path.join(ROOT, "benches", "scripts", "record-programs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.programs(out)


def included(prog, internal):
    name = internal.replace("/", ".")
    return any(name.startswith(i) for i in prog["include"]) and not any(name.startswith(e) for e in prog["exclude"])


def jacoco_patterns(prog):
    inc = ":".join(f"{i}*" for i in prog["include"])
    exc = ":".join(f"{e}*" for e in prog["exclude"])
    return f"includes={inc}" + (f",excludes={exc}" if exc else "")


def dump(tools, exec_file, jar, prog):
    """JaCoCo's analysis of an execution file: per class (C) counters, covered methods and the
    set of covered (class, line) pairs of the included classes."""
    text = subprocess.run(["java", "-cp", f"{tools}:{JACOCO_CP}", "ferrosuite.tools.JacocoDump", exec_file, jar],
                          capture_output=True, text=True, check=True).stdout
    classes, methods, lines = {}, set(), set()
    for row in text.splitlines():
        f = row.split(" ")
        if not included(prog, f[1]):
            continue
        if f[0] == "C":
            classes[f[1]] = tuple(int(x) for x in f[2:8])
        elif f[0] == "M":
            # Entered: an instruction covered (lines are missing from jars built without them).
            if int(f[8]) > 0:
                methods.add((f[1], f[2], f[3]))
        elif f[0] == "L":
            # JaCoCo's ICounter status: 1 not covered, 2 fully covered, 3 partly covered.
            if f[7] in ("2", "3"):
                lines.add((f[1], int(f[4])))
    return {"classes": classes, "methods": methods, "lines": lines}


def sums(d):
    lc = sum(c[0] for c in d["classes"].values())
    lm = sum(c[1] for c in d["classes"].values())
    bc = sum(c[2] for c in d["classes"].values())
    bm = sum(c[3] for c in d["classes"].values())
    ic = sum(c[4] for c in d["classes"].values())
    im = sum(c[5] for c in d["classes"].values())
    return lc, lc + lm, bc, bc + bm, ic, ic + im


def pit_classpath(work):
    cpfile = os.path.join(work, "pit.classpath")
    if not os.path.exists(cpfile):
        p = subprocess.run(["mvn", "-q", "-B", "-f", os.path.join(ROOT, "scripts", "pit", "pom.xml"),
                            "dependency:build-classpath", f"-Dmdep.outputFile={cpfile}"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("cannot resolve PIT through Maven: " + p.stdout[-2000:] + p.stderr[-2000:])
    return open(cpfile).read().strip()


def traced_classes(store, prog):
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = con.execute("SELECT DISTINCT class FROM methods WHERE seen > 0 AND name <> '<clinit>'").fetchall()
    con.close()
    return sorted({r[0].replace("/", ".") for r in rows if included(prog, r[0])})


def pit_counts(xml):
    killed = total = survived = nocov = timed = 0
    per_class = {}
    for m in re.findall(r"<mutation [^>]*>.*?</mutation>", open(xml, encoding="utf-8", errors="replace").read(), re.S):
        total += 1
        cls = re.search(r"<mutatedClass>([^<]*)</mutatedClass>", m).group(1)
        c = per_class.setdefault(cls, [0, 0])
        c[1] += 1
        if "detected='true'" in m or 'detected="true"' in m:
            killed += 1
            c[0] += 1
        status = re.search(r"status=.(\w+).", m).group(1)
        survived += status == "SURVIVED"
        nocov += status == "NO_COVERAGE"
        timed += status == "TIMED_OUT"
    return {"killed": killed, "mutants": total, "survived": survived, "no_coverage": nocov, "timed_out": timed,
            "per_class": per_class}


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = os.path.abspath(sys.argv[1])
    progs = load_programs(out)
    names = sys.argv[2:] or list(progs)
    qdir = os.path.join(out, "quality")
    tools = os.path.join(qdir, "tools")
    os.makedirs(qdir, exist_ok=True)
    if os.environ.get("ANALYSE_ONLY", "0") == "1" or not os.path.exists(
            os.path.join(tools, "ferrosuite", "tools", "JacocoDump.class")):
        subprocess.run([os.path.join(ROOT, "scripts", "java-tools.sh"), tools], check=True, capture_output=True)
    agent_jar = os.path.join(tools, "jacocoagent.jar")
    junit_api = ":".join(f"{J}/{j}" for j in ("junit-jupiter-api.jar", "apiguardian-api.jar", "opentest4j.jar",
                                               "junit-platform-commons.jar"))
    results = []
    for name in names:
        prog = progs[name]
        jar = prog["classpath"]
        store = os.path.join(out, f"{name}.db")
        carved = os.path.join(out, f"{name}-carved")
        work = os.path.join(qdir, name)
        again = os.environ.get("ANALYSE_ONLY", "0") == "1"
        if not again:
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
        row = {"program": name}
        sources = sorted(glob.glob(os.path.join(carved, "**", "*.java"), recursive=True))
        row["test_classes"] = len(sources)
        bin_dir = os.path.join(work, "classes")
        orig_exec = os.path.join(work, "run.exec")
        tests_exec = os.path.join(work, "tests.exec")
        scratch = os.path.join(work, "cwd")
        if again:
            row.update(run_again(work))
        # 1. The original run under JaCoCo.
        cmd = list(prog["command"])
        cmd.insert(1, f"-javaagent:{agent_jar}=destfile={orig_exec},{jacoco_patterns(prog)}")
        for d in ("jflex-out", "javacc-out"):
            shutil.rmtree(os.path.join(out, d), ignore_errors=True)
        if not again:
            run_program_and_tests(row, cmd, sources, carved, jar, junit_api, agent_jar, prog, work, bin_dir,
                                  tests_exec, scratch)
        # 3. Coverage compared.
        a = dump(tools, orig_exec, jar, prog)
        b = dump(tools, tests_exec, jar, prog) if os.path.exists(tests_exec) else {"classes": {}, "methods": set(), "lines": set()}
        lc, lt, bc, bt, ic, it = sums(a)
        row["lines"] = lt
        row["branches"] = bt
        row["instructions"] = it
        row["run_lines"], row["run_branches"], row["run_instructions"] = lc, bc, ic
        tlc, _, tbc, _, tic, _ = sums(b) if b["classes"] else (0, 0, 0, 0, 0, 0)
        row["tests_lines"], row["tests_branches"], row["tests_instructions"] = tlc, tbc, tic
        row["run_methods"] = len(a["methods"])
        row["tests_methods"] = len(b["methods"])
        row["both_methods"] = len(a["methods"] & b["methods"])
        row["run_line_set"] = len(a["lines"])
        row["tests_line_set"] = len(b["lines"])
        row["both_lines"] = len(a["lines"] & b["lines"])
        row["tests_only_lines"] = len(b["lines"] - a["lines"])
        row["run_classes"] = sum(1 for c in a["classes"].values() if c[0] > 0 or c[4] > 0)
        # 4. PIT on the traced classes.
        if not again and os.environ.get("PIT", "1") != "0" and row["compiled"]:
            run_pit(row, store, prog, qdir, sources, carved, work, bin_dir, jar, scratch)
        mx = os.path.join(work, "pit", "mutations.xml")
        if os.path.exists(mx):
            counts = pit_counts(mx)
            per = counts.pop("per_class")
            row.update({f"pit_{k}": v for k, v in counts.items()})
            json.dump(per, open(os.path.join(work, "pit-per-class.json"), "w"), indent=1, sort_keys=True)
        json.dump(row, open(os.path.join(work, "row.json"), "w"), indent=1, sort_keys=True)
        results.append(row)
        print(json.dumps(row), flush=True)
    finish(out, qdir, results)


def run_again(work):
    """What earlier analyses of this program measured that this one does not redo: per key, the
    last value set in OUT/quality/results.jsonl or in its row.json."""
    rows = []
    name = os.path.basename(work)
    jsonl = os.path.join(os.path.dirname(work), "results.jsonl")
    if os.path.exists(jsonl):
        rows = [x for x in map(json.loads, open(jsonl)) if x.get("program") == name]
    if os.path.exists(os.path.join(work, "row.json")):
        rows.append(json.load(open(os.path.join(work, "row.json"))))
    keep = ("run_s", "run_exit", "compiled", "tests_s", "tests", "failures", "errors", "skipped",
            "traced_classes", "pit_exit", "pit_s")
    out = {}
    for r in rows:
        out.update({k: r[k] for k in keep if r.get(k) is not None})
    return out


def test_libs(carved):
    """Mockito (with Byte Buddy's agent) and, for tests that control the environment, the
    runtime jar `ferrosuite carve` wrote beside them."""
    rt = os.path.join(carved, "ferrosuite-runtime.jar")
    return MOCKITO_CP + (f":{rt}" if os.path.exists(rt) else "")


def run_program_and_tests(row, cmd, sources, carved, jar, junit_api, agent_jar, prog, work, bin_dir, tests_exec,
                          scratch):
    """Steps 1 and 2: the program under JaCoCo, the carved tests compiled and run under JaCoCo."""
    libs = test_libs(carved)
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True)
    row["run_s"] = time.monotonic() - t
    row["run_exit"] = p.returncode
    os.makedirs(bin_dir)
    javac = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", bin_dir, "-cp",
                            f"{jar}:{junit_api}:{libs}"] + sources, capture_output=True, text=True)
    row["compiled"] = javac.returncode == 0
    if javac.returncode != 0:
        open(os.path.join(work, "javac.txt"), "w").write(javac.stdout + javac.stderr)
    os.makedirs(scratch)
    t = time.monotonic()
    run = subprocess.run(["java", f"-javaagent:{agent_jar}=destfile={tests_exec},{jacoco_patterns(prog)}",
                          "-jar", f"{J}/junit-platform-console-standalone.jar", "--disable-banner",
                          "--details=none", "--disable-ansi-colors", "--reports-dir", os.path.join(work, "reports"),
                          "-cp", f"{bin_dir}:{jar}:{libs}", "--scan-classpath", bin_dir],
                         capture_output=True, text=True, cwd=scratch)
    row["tests_s"] = time.monotonic() - t
    open(os.path.join(work, "junit.txt"), "w").write(run.stdout + run.stderr)
    xml = os.path.join(work, "reports", "TEST-junit-jupiter.xml")
    head = open(xml).read(4000) if os.path.exists(xml) else ""
    for k in ("tests", "failures", "errors", "skipped"):
        m = re.search(rf'{k}="(\d+)"', head)
        row[k] = int(m.group(1)) if m else None


def run_pit(row, store, prog, qdir, sources, carved, work, bin_dir, jar, scratch):
    """Step 4: PIT's DEFAULTS mutants of the traced classes against the carved tests."""
    traced = traced_classes(store, prog)
    row["traced_classes"] = len(traced)
    pit_cp = pit_classpath(qdir)
    junit_pit = ",".join(x for x in pit_cp.split(":") if re.search(
        r"/(junit|opentest4j|apiguardian|hamcrest|pitest-junit5-plugin)[^/]*\.jar$", x))
    test_names = sorted({os.path.relpath(s, carved)[:-5].replace(os.sep, ".") for s in sources})
    t = time.monotonic()
    try:
        pit = subprocess.run(
            ["java", "-cp", pit_cp, "org.pitest.mutationtest.commandline.MutationCoverageReport",
             "--reportDir", os.path.join(work, "pit"), "--targetClasses", ",".join(traced),
             "--targetTests", ",".join(test_names), "--sourceDirs", carved,
             "--classPath", ",".join([bin_dir, jar, junit_pit] + test_libs(carved).split(":")),
             "--mutableCodePaths", jar, "--includeLaunchClasspath=false", "--mutators", "DEFAULTS",
             "--outputFormats", "XML", "--timestampedReports=false", "--skipFailingTests=true",
             "--threads", os.environ.get("THREADS", "2"), "--verbose=false"],
            capture_output=True, text=True, cwd=scratch,
            timeout=60 * int(os.environ.get("PIT_TIMEOUT", "45m").rstrip("m")))
        open(os.path.join(work, "pit.txt"), "w").write(pit.stdout[-20000:] + pit.stderr[-20000:])
        row["pit_exit"] = pit.returncode
    except subprocess.TimeoutExpired:
        row["pit_exit"] = "timeout"
    row["pit_s"] = time.monotonic() - t


def finish(out, qdir, results):
    """Appends the rows to OUT/quality/results.jsonl and writes and prints the summary table."""
    for d in ("jflex-out", "javacc-out"):
        shutil.rmtree(os.path.join(out, d), ignore_errors=True)
    with open(os.path.join(qdir, "results.jsonl"), "a") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    pct = lambda a, b: f"{100.0 * a / b:.1f} %" if b else "–"
    lines = ["| program | run: lines | carved tests: lines | lines both | run: instructions | carved: instructions | "
             "carved / run instructions | run: branches | carved: branches | run: methods | carved: methods (both) | "
             "tests (failed) | PIT: traced classes | mutants | killed | no coverage |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        fails = (r.get("failures") or 0) + (r.get("errors") or 0)
        lines.append(
            f"| {r['program']} | {r['run_lines']} ({pct(r['run_lines'], r['lines'])}) | "
            f"{r['tests_lines']} ({pct(r['tests_lines'], r['lines'])}) | {r['both_lines']} | "
            f"{r['run_instructions']} ({pct(r['run_instructions'], r['instructions'])}) | "
            f"{r['tests_instructions']} ({pct(r['tests_instructions'], r['instructions'])}) | "
            f"{pct(r['tests_instructions'], r['run_instructions'])} | "
            f"{r['run_branches']} ({pct(r['run_branches'], r['branches'])}) | "
            f"{r['tests_branches']} ({pct(r['tests_branches'], r['branches'])}) | {r['run_methods']} | "
            f"{r['tests_methods']} ({r['both_methods']}) | {r.get('tests')} ({fails}) | "
            f"{r.get('traced_classes', '–')} | {r.get('pit_mutants', '–')} | "
            f"{r.get('pit_killed', '–')} ({pct(r.get('pit_killed') or 0, r.get('pit_mutants') or 0)}) | "
            f"{r.get('pit_no_coverage', '–')} |")
    text = "\n".join(lines) + "\n"
    open(os.path.join(qdir, "summary.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
