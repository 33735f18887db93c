#!/usr/bin/env python3
"""Checks tools/conformance/conform.py itself on the hand-made corpus in mini/.

usage: tool_test.py TIRXC SOURCE_DIR SCRATCH_DIR

mini/ holds five small programs in TVM's printed form: two native kernels
that print back (one only after its unusual import header is ignored), one
with an undefined name that the manifest says TVM expected to fail, a tile
primitive kernel and an s_tir one. The checks stay on what does not depend
on how far the frontend has come: the subsets, the measures of the two good
kernels, the located rejection, the floor logic (--update / --expect) and a
folder without kernels/ or manifest. ptx/ptxas counts are checked only when
ptxas is installed (NVRTC comes with it).
"""

import json
import os
import shutil
import subprocess
import sys

TIRXC, SRC, SCRATCH = sys.argv[1:4]
TOOL = os.path.join(SRC, "tools", "conformance", "conform.py")
MINI = os.path.join(SRC, "tests", "conformance", "mini")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def conform(*args, corpus=MINI, out="out", tirxc=TIRXC):
    cmd = [sys.executable, TOOL, "--tirxc", tirxc, "--jobs", "2", "--quiet", "--out", os.path.join(SCRATCH, out)]
    p = subprocess.run(cmd + list(args) + [corpus], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def counts(out="out"):
    with open(os.path.join(SCRATCH, out, "summary.json")) as f:
        return json.load(f)


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
have_ptxas = os.path.exists("/usr/local/cuda/bin/ptxas") or shutil.which("ptxas") is not None

rc, log = conform()
check(rc == 0, f"a plain run exits 0 (got {rc}: {log[-300:]})")
c = counts()
check(c["all"]["files"] == 5 and c["native"]["files"] == 4 and c["tile"]["files"] == 1, "subsets: 5 files, 4 native, 1 tile")
check(c["s_tir"]["files"] == 1 and c["native_no_s_tir"]["files"] == 3, "s_tir column: 1 file")
check(c["native_no_s_tir"]["parse"] >= 2, "both good native kernels parse")
check(c["native_no_s_tir"]["identical_nohdr"] >= 2, "both print back when the import header is ignored")
check(c["native"]["identical"] >= 1, "native_store prints byte-identically")
check(c["all"]["fixpoint"] == c["all"]["parse"], "every parsed file reaches the fixed point")
check(c["all"]["tvm_raises"] == 2 and c["native"]["tvm_raises_rejected_parse"] == 1,
      "TVM-expected failures: 2; the undefined name is rejected at parse with a location")
check(c["all"]["crash"] == 0 and c["all"]["timeout"] == 0, "no crash, no timeout")
with open(os.path.join(SCRATCH, "out", "per_file.tsv")) as f:
    rows = {ln.split("\t")[0]: ln.rstrip("\n").split("\t") for ln in f}
check(rows["native_header.tirx"][4] == "False" and rows["native_header.tirx"][5] == "True",
      "native_header: not identical, identical without the header lines")
check(rows["native_undefined.tirx"][-1] == "parse: FILE: error: undefined name 'B'",
      "failure class: first error line with the file name normalised")
check(os.path.exists(os.path.join(SCRATCH, "out", "fidelity-diffs", "native_header.tirx.diff")), "a diff for each non-identical print")
if have_ptxas:
    check(c["native_no_s_tir"]["ptx"] >= 2 and c["native_no_s_tir"]["ptxas"] >= 2, "both good native kernels pass ptxas")

if have_ptxas:
    expect = os.path.join(SCRATCH, "expect.txt")
    rc, log = conform("--expect", expect, "--update")
    check(rc == 0 and os.path.exists(expect), "--update writes the floor")
    rc, log = conform("--expect", expect)
    check(rc == 0 and "ok, every count" in log, "the run meets the floor it wrote")
    with open(expect) as f:
        text = f.read()
    with open(expect, "w") as f:
        f.write(text.replace(f"parse.all {c['all']['parse']}\n", f"parse.all {c['all']['parse'] + 1}\n"))
    rc, log = conform("--expect", expect)
    check(rc == 1 and "REGRESSION: parse.all" in log, "a count below its floor fails")
    with open(expect, "w") as f:
        f.write(text.replace(f"parse.all {c['all']['parse']}\n", f"parse.all {c['all']['parse'] - 1}\n"))
    rc, log = conform("--expect", expect)
    check(rc == 0 and "better than the floor: parse.all" in log and "--update" in log, "a count above its floor passes with a hint")
    with open(expect, "w") as f:
        f.write(text.replace("corpus.all 5\n", "corpus.all 6\n"))
    rc, log = conform("--expect", expect)
    check(rc == 1 and "corpus.all" in log, "a different corpus fails")

flat = os.path.join(SCRATCH, "flat")
os.makedirs(os.path.join(flat, "sub"))
shutil.copy(os.path.join(MINI, "kernels", "native_store.tirx"), os.path.join(flat, "sub", "a.tirx"))
rc, log = conform(corpus=flat, out="flat-out")
fc = counts("flat-out")
check(rc == 0 and fc["all"]["files"] == 1 and fc["all"]["parse"] == 1, "a folder of .tirx files with no manifest works")

# A tirxc that crashes on one file and hangs on another: both are their own class and fail the run.
fake = os.path.join(SCRATCH, "fake-tirxc")
with open(fake, "w") as f:
    f.write('#!/bin/sh\ncase "$1" in\n*native_store*) kill -SEGV $$ ;;\n*native_header*) sleep 5 ;;\nesac\n'
            f'exec "{os.path.abspath(TIRXC)}" "$@"\n')
os.chmod(fake, 0o755)
rc, log = conform("--timeout", "1", out="fake-out", tirxc=fake)
fc = counts("fake-out")
with open(os.path.join(SCRATCH, "fake-out", "summary.txt")) as f:
    summary = f.read()
check(rc == 1 and fc["all"]["crash"] == 1 and fc["all"]["timeout"] == 1, "a crash and a timeout are counted and fail the run")
check("parse: CRASH signal SIGSEGV" in summary and "parse: TIMEOUT (> 1s)" in summary, "crash and timeout classes are named")

rc, log = conform("--skip-missing", corpus=os.path.join(SCRATCH, "absent"))
check(rc == 77 and "no corpus" in log, "an absent corpus skips (77) with a reason")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
