#!/usr/bin/env python3
"""Checks tools/conformance/conform.py itself on the hand-made corpus in mini/.

usage: tool_test.py TIRXC SOURCE_DIR SCRATCH_DIR

mini/ holds nine small programs in TVM's printed form. The exact counts are
checked with a stand-in tirxc and ptxas (written below) whose behaviour is
keyed on each kernel's function name (ok_, hdr_, drift_, internal_, asmfail_,
unlocated_, bad_, tile_; shell scripts, to start fast), so every measure, the TVM-expected-failure
agreement, the failure classes, crashes, timeouts and the floor logic
(--expect / --update) are exercised whatever the real tirxc does today. The
real tirxc then runs over the same corpus with only the checks that do not
depend on how far the frontend has come.
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

FAKE_TIRXC = r'''
path=$1 emit= out= prev=
for a in "$@"; do
  case $a in --emit=*) emit=${a#--emit=} ;; esac
  [ "$prev" = -o ] && out=$a
  prev=$a
done
fn=$(sed -n 's/^def \([a-z]*\)_.*/\1/p' "$path")
case "${FAKE_MODE:-}:$fn" in
crash:ok) kill -SEGV $$ ;;
hang:hdr) exec sleep 5 ;;
esac
if [ "$fn" = bad ]; then
  printf "%s:7:13: error: undefined name 'B'\n      A[tx] = B[tx]\n              ^\n" "$path" >&2
  exit 1
fi
if [ "$emit" = tirx ]; then
  case $fn in
  hdr) echo '# from tvm.script import tirx as T'; grep -v '^# from ' "$path" ;;
  drift) cat "$path"; echo '# again' ;;
  *) cat "$path" ;;
  esac
  exit 0
fi
case $fn in
internal) echo 'tirxc: error: internal error in lower-tirx: malformed IR after 42 steps' >&2; exit 3 ;;
unlocated) echo 'tirxc: error: cannot lower this' >&2; exit 1 ;;
tile) echo "$path:8:5: error: tile primitive T.tile.copy is not lowered yet" >&2; exit 1 ;;
esac
echo "// $fn" > "$out"
'''

FAKE_PTXAS = r'''
prev=
for a in "$@"; do
  case $a in *.ptx) ptx=$a ;; esac
  [ "$prev" = -o ] && out=$a
  prev=$a
done
if grep -q asmfail "$ptx"; then
  echo "ptxas fatal   : Unresolved extern function 'f' in $ptx" >&2
  exit 255
fi
echo cubin > "$out"
'''


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def script(name, body):
    path = os.path.join(SCRATCH, name)
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\n{body}")
    os.chmod(path, 0o755)
    return path


def conform(*args, corpus=MINI, out="out", tirxc=None, ptxas=None, env=None):
    cmd = [sys.executable, TOOL, "--tirxc", tirxc or FAKE, "--jobs", "2", "--quiet", "--out", os.path.join(SCRATCH, out)]
    cmd += ["--ptxas", ptxas] if ptxas else []
    p = subprocess.run(cmd + list(args) + [corpus], capture_output=True, text=True, env={**os.environ, **(env or {})})
    return p.returncode, p.stdout + p.stderr


def results(out="out"):
    with open(os.path.join(SCRATCH, out, "summary.json")) as f:
        counts = json.load(f)
    with open(os.path.join(SCRATCH, out, "per_file.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = {}
        for line in f:
            vals = line.rstrip("\n").split("\t")
            rows[vals[0]] = dict(zip(head, vals))
    with open(os.path.join(SCRATCH, out, "summary.txt")) as f:
        return counts, rows, f.read()


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
FAKE = script("fake-tirxc", FAKE_TIRXC)
FAKE_AS = script("fake-ptxas", FAKE_PTXAS)

# ---- exact counts with the stand-ins ---------------------------------------
rc, log = conform(ptxas=FAKE_AS)
check(rc == 0, f"a run without crashes exits 0 (got {rc}: {log[-300:]})")
c, rows, summary = results()
a = c["all"]
check((a["files"], c["native"]["files"], c["tile"]["files"], c["s_tir"]["files"]) == (9, 8, 1, 1),
      "subsets: 9 files, 8 native, 1 tile, 1 s_tir")
check((a["parse"], c["native"]["parse"], c["tile"]["parse"], c["s_tir"]["parse"]) == (7, 6, 1, 0), "(a) parse 7 = 6 native + 1 tile")
check(a["identical"] == 5, "(b) 5 byte-identical (not hdr, drift, or the two rejected)")
check(a["identical_nohdr"] == 6, "(b') hdr is identical once import header lines are ignored")
check(a["fixpoint"] == 6 and rows["native_drift.tirx"]["fixpoint"] == "False", "(c) drift misses the fixed point")
check(a["ptx"] == 4 and a["ptxas"] == 3, "(d) ptx 4 (ok, hdr, drift, asmfail), ptxas 3")
check(c["native_no_s_tir"]["ptxas"] == 3 and c["tile"]["ptx"] == 0, "(d) native / (e) tile columns")
check((a["tvm_raises"], a["tvm_raises_rejected"], a["tvm_raises_rejected_parse"], a["tvm_raises_rejected_ptx"]) == (3, 2, 1, 1),
      "TVM-expected failures: 3, rejected with a location 2 (1 at parse, 1 at ptx)")
check((a["tvm_raises_ptx"], a["tvm_raises_ptxas"]) == (1, 0), "asmfail: tirxc compiles what TVM rejects, ptxas refuses")
check(a["internal"] == 1 and a["crash"] == 0 and a["timeout"] == 0, "exit 3 counts as an internal error")
check(rows["native_unlocated.tirx"]["reject"] == "", "an error without file:line:col is not a located rejection")
check(rows["native_ok.tirx"]["arch"] == "sm_100a" and rows["native_drift.tirx"]["arch"] == "sm_90a",
      "arch: the manifest's sm_ value, else the default")
check(rows["native_undefined.tirx"]["first_failure"] == "parse: FILE: error: undefined name 'B'",
      "failure class: the file name and position normalised away")
check("internal error in lower-tirx: malformed IR after N steps" in summary, "failure class: numbers normalised away")
check("ptxas: ptxas fatal : Unresolved extern function 'f' in FILE" in summary or
      "ptxas: ptxas fatal   : Unresolved extern function 'f' in FILE" in summary, "ptxas failures are classed too")
check("fixpoint: second print differs from first" in summary, "fixed-point misses are a class")
check(os.path.exists(os.path.join(SCRATCH, "out", "fidelity-diffs", "native_header.tirx.diff")), "a diff per non-identical print")

rc, log = conform(ptxas=FAKE_AS, out="crash", env={"FAKE_MODE": "crash"})
c2, _, s2 = results("crash")
check(rc == 1 and c2["all"]["crash"] == 1 and "parse: CRASH signal SIGSEGV" in s2, "a crash is its own class and fails the run")
rc, log = conform("--timeout", "1", ptxas=FAKE_AS, out="hang", env={"FAKE_MODE": "hang"})
c2, _, s2 = results("hang")
check(rc == 1 and c2["all"]["timeout"] == 1 and "parse: TIMEOUT (> 1s)" in s2, "a hang is its own class and fails the run")

# ---- the floor --------------------------------------------------------------
expect = os.path.join(SCRATCH, "expect.txt")
rc, log = conform("--expect", expect, "--update", ptxas=FAKE_AS)
check(rc == 0 and os.path.exists(expect), "--update writes the floor")
rc, log = conform("--expect", expect, ptxas=FAKE_AS)
check(rc == 0 and "ok, every count" in log, "the run meets the floor it wrote")
with open(expect) as f:
    text = f.read()
check("parse.all 7\n" in text and "ptxas.native 3\n" in text and "max.internal 1\n" in text, "the floor holds the counts")


def with_expect(old, new):
    with open(expect, "w") as f:
        f.write(text.replace(old, new))
    return conform("--expect", expect, ptxas=FAKE_AS)


rc, log = with_expect("parse.all 7\n", "parse.all 8\n")
check(rc == 1 and "REGRESSION: parse.all: 7 < floor 8" in log, "a count below its floor fails")
rc, log = with_expect("ptxas.native 3\n", "ptxas.native 2\n")
check(rc == 0 and "better than the floor: ptxas.native" in log and "--update" in log, "a count above its floor passes, with a hint")
rc, log = with_expect("max.internal 1\n", "max.internal 0\n")
check(rc == 1 and "max.internal" in log, "more internal errors than allowed fail")
rc, log = with_expect("corpus.all 9\n", "corpus.all 10\n")
check(rc == 1 and "corpus.all" in log, "a different corpus fails")
rc, log = conform("--expect", expect, ptxas=FAKE_AS, out="crash", env={"FAKE_MODE": "crash"})
check(rc == 1 and "crash" in log, "a crash fails even when every floor is met")
rc, log = conform("--expect", expect, "--update", ptxas=FAKE_AS, out="crash", env={"FAKE_MODE": "crash"})
check(rc == 1 and "not writing" in log, "--update refuses to write a floor that accepts a crash")

# ---- folders and skips -------------------------------------------------------
flat = os.path.join(SCRATCH, "flat")
os.makedirs(os.path.join(flat, "sub"))
shutil.copy(os.path.join(MINI, "kernels", "native_ok.tirx"), os.path.join(flat, "sub", "a.tirx"))
rc, log = conform(corpus=flat, out="flat-out", ptxas=FAKE_AS)
fc, frows, _ = results("flat-out")
check(rc == 0 and fc["all"]["files"] == 1 and fc["all"]["ptxas"] == 1 and frows["sub/a.tirx"]["arch"] == "sm_90a",
      "a folder of .tirx files without kernels/ or a manifest: every file, the default arch")
rc, log = conform("--skip-missing", corpus=os.path.join(SCRATCH, "absent"))
check(rc == 77 and "no corpus" in log, "an absent corpus skips (77) with a reason")
rc, log = conform("--skip-missing", ptxas=os.path.join(SCRATCH, "no-ptxas"),
                  env={"PTXAS": "", "PATH": os.path.dirname(sys.executable)})
if not os.path.exists("/usr/local/cuda/bin/ptxas"):
    check(rc == 77 and "ptxas" in log, "no ptxas skips (77) with a reason")

# ---- the real tirxc ----------------------------------------------------------
rc, log = conform(tirxc=TIRXC, out="real")
rc_, rrows, _ = results("real")
check(rc == 0 and rc_["all"]["crash"] == 0 and rc_["all"]["timeout"] == 0, "the real tirxc: no crash, no hang")
check(rrows["native_undefined.tirx"]["reject"] == "parse", "the real tirxc rejects the undefined name with a location")
check(rc_["all"]["files"] == 9 and rc_["s_tir"]["files"] == 1, "the real tirxc run counts the same subsets")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
