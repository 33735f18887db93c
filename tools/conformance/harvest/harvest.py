#!/usr/bin/env python3
"""Build a conformance corpus from a TVM install and a TVM-style test tree.

usage: harvest.py [options] TESTS CORPUS [-- PYTEST_ARGS...]
       harvest.py --from-records RAW CORPUS

Runs every test_*.py under TESTS (a folder or single files) in its own pytest
process with tirx_harvest_plugin loaded, using a Python that can `import tvm`
(--python, default this one). The plugin stores each program the tests hand
to TVM (compile, assert_structural_equal, .script()) as TVM prints it. The
programs are then deduplicated by content and written as

  CORPUS/kernels/<test file>__<test>__<n>.tirx
  CORPUS/manifest.tsv   file, source_test, arch, uses_tile_primitives, origin,
                        compile_inside_pytest_raises, n_tests, sha256_16

which tools/conformance/conform.py measures. The raw recordings stay in
CORPUS/raw (records/*.jsonl, texts/) and the pytest logs in CORPUS/logs, so
--from-records can rebuild the corpus without running the tests again.
Python 3 standard library only (pytest and TVM are needed in --python).
"""

import argparse
import collections
import concurrent.futures
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(HERE))
from conform import TILE_CALL  # noqa: E402 - one definition of a tile-primitive call

# Tests that compile without naming an arch but need a particular GPU in
# TVM's own tree (they are skipped on others): the arch they are meant for.
TVM_TREE_ARCH_HINTS = [
    ("*tile_primitive/cuda/*", "sm_100a"),
    ("*test_codegen_blackwell*", "sm_100a"),
    ("*test_codegen_hopper*", "sm_90a"),
    ("*test_codegen_ampere*", "sm_80"),
]
COLUMNS = ("file", "source_test", "arch", "uses_tile_primitives", "origin", "compile_inside_pytest_raises",
           "n_tests", "sha256_16")


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="harvest.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("tests", nargs="?", help="test folder (every test_*.py below it) or one test file")
    ap.add_argument("corpus", help="output corpus folder (kernels/, manifest.tsv, raw/, logs/)")
    ap.add_argument("--python", default=sys.executable, help="a Python with tvm and pytest (default: this one)")
    ap.add_argument("--rootdir", help="folder pytest runs in (default: TESTS itself, where its conftest.py is)")
    ap.add_argument("--jobs", type=int, default=1, help="test files run in parallel")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per test file (beyond: killed, logged)")
    ap.add_argument("--arch-hint", action="append", default=[], metavar="GLOB=ARCH",
                    help="arch for kernels of tests matching GLOB compiled with no arch (repeatable)")
    ap.add_argument("--no-tvm-hints", action="store_true", help="drop the built-in hints for TVM's own test tree")
    ap.add_argument("--alias-module", action="append", default=[], metavar="OLD=NEW",
                    help="import NEW when a test imports OLD (e.g. tvm.arith=tvm.sym for TVM-main tests on 0.27)")
    ap.add_argument("--run-compile", action="store_true", help="run the real compiles (needs a GPU and CUDA)")
    ap.add_argument("--from-records", metavar="RAW", help="skip the tests; build CORPUS from an earlier raw/ folder")
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    opts = ap.parse_args(argv[:len(argv) - len(extra) - (1 if "--" in argv else 0)])
    opts.pytest_args = extra  # after --: more pytest arguments (e.g. -k EXPR)
    if not opts.from_records and not opts.tests:
        ap.error("give TESTS and CORPUS, or --from-records RAW CORPUS")
    return opts


def test_files(tests):
    if os.path.isfile(tests):
        return [os.path.abspath(tests)]
    found = []
    for dirpath, dirnames, names in os.walk(tests):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        found += [os.path.join(dirpath, n) for n in sorted(names) if fnmatch.fnmatch(n, "test_*.py")]
    return [os.path.abspath(f) for f in found]


def run_one(opts, rootdir, raw, logs, path):
    rel = os.path.relpath(path, rootdir)
    env = dict(os.environ)
    env["PYTHONPATH"] = HERE + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["TIRX_HARVEST_DIR"] = raw
    env["TIRX_HARVEST_COMPILE"] = "run" if opts.run_compile else "skip"
    env["TIRX_HARVEST_ALIASES"] = ",".join(opts.alias_module)
    cmd = [opts.python, "-m", "pytest", "-p", "tirx_harvest_plugin", "-p", "no:cacheprovider", "-q", "-rN", rel]
    cmd += opts.pytest_args
    log = os.path.join(logs, re.sub(r"[^\w.-]+", "_", rel) + ".log")
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, cwd=rootdir, env=env, stdout=f, stderr=subprocess.STDOUT,
                                timeout=opts.timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rel, rc


def run_tests(opts, raw, logs):
    rootdir = os.path.abspath(opts.rootdir or (opts.tests if os.path.isdir(opts.tests) else os.path.dirname(opts.tests)))
    files = test_files(opts.tests)
    print(f"harvest: {len(files)} test files under {opts.tests}, pytest in {rootdir}")
    status = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as ex:
        for rel, rc in ex.map(lambda p: run_one(opts, rootdir, raw, logs, p), files):
            status[rel] = rc
            print(f"  {rc!s:>7}  {rel}")
    with open(os.path.join(logs, "status.tsv"), "w") as f:
        f.write("test_file\tpytest_exit\n")
        for rel, rc in sorted(status.items()):
            f.write(f"{rel}\t{rc}\n")
    # pytest exits 5 when a file has no tests; 0/1 are normal outcomes under the plugin
    trouble = {k: v for k, v in status.items() if v not in (0, 1, 5)}
    if trouble:
        print(f"harvest: {len(trouble)} test file(s) ended abnormally (see {logs}/status.tsv and the logs)")


# ---- records -> corpus -----------------------------------------------------


def load_records(raw):
    recs = []
    for path in sorted(glob.glob(os.path.join(raw, "records", "*.jsonl"))):
        with open(path) as f:
            recs += [json.loads(line) for line in f if line.strip()]
    return recs


class Program:
    """Everything seen about one distinct printed text."""

    def __init__(self, first_test):
        self.first_test = first_test
        self.tests = []
        self.origins = set()
        self.archs = set()
        self.kinds = set()
        self.raises = set()

    def add(self, rec):
        if rec["test"] not in self.tests:
            self.tests.append(rec["test"])
        self.origins.add(rec["origin"])
        if rec["origin"] == "compile":
            self.kinds.add(rec.get("kind", ""))
            if rec.get("arch"):
                self.archs.add(rec["arch"])
            self.raises.add(bool(rec.get("in_raises")))

    def arch(self, hints):
        if self.archs:
            return ",".join(sorted(self.archs))
        if "compile" not in self.origins:
            return "none"
        kinds = self.kinds - {""}
        if kinds and "cuda" not in kinds:
            return "other:" + ",".join(sorted(kinds))
        for pattern, arch in hints:
            if fnmatch.fnmatch(self.first_test, pattern):
                return arch
        return "cuda-default"

    def in_raises(self):
        if self.raises == {True}:
            return "yes"
        return "mixed" if len(self.raises) > 1 else "no"


def safe(text, limit):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:limit]


def file_name(test, taken):
    path, _, name = test.partition("::")
    stem = os.path.splitext(os.path.basename(path))[0]
    base = f"{safe(stem, 60)}__{safe(name.replace('::', '.'), 90)}"
    n = taken[base]
    taken[base] += 1
    return f"{base}__{n}.tirx"


def build_corpus(raw, corpus, hints):
    recs = load_records(raw)
    programs = collections.OrderedDict()
    for rec in recs:
        if "sha" in rec:
            programs.setdefault(rec["sha"], Program(rec["test"])).add(rec)
    kdir = os.path.join(corpus, "kernels")
    shutil.rmtree(kdir, ignore_errors=True)
    os.makedirs(kdir)
    taken = collections.Counter()
    rows = []
    for sha, prog in programs.items():
        with open(os.path.join(raw, "texts", sha + ".tirx"), "rb") as f:
            data = f.read()
        name = file_name(prog.first_test, taken)
        with open(os.path.join(kdir, name), "wb") as f:
            f.write(data)
        tile = "yes" if TILE_CALL.search(data.decode(errors="replace")) else "no"
        rows.append((name, prog.first_test, prog.arch(hints), tile, "+".join(sorted(prog.origins)),
                     prog.in_raises(), str(len(prog.tests)), sha))
    with open(os.path.join(corpus, "manifest.tsv"), "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    unprinted = sum(1 for r in recs if "print_error" in r)
    print(f"harvest: {len(recs)} sightings, {len(rows)} distinct programs "
          f"({sum(1 for r in rows if r[3] == 'yes')} with tile primitives), {unprinted} that TVM could not print")
    print(f"harvest: wrote {kdir}/ and {corpus}/manifest.tsv; measure with "
          f"tools/conformance/conform.py {corpus}")
    return len(rows)


def main(argv):
    opts = parse_args(argv)
    hints = [tuple(h.split("=", 1)) for h in opts.arch_hint if "=" in h]
    if not opts.no_tvm_hints:
        hints += TVM_TREE_ARCH_HINTS
    os.makedirs(opts.corpus, exist_ok=True)
    if opts.from_records:
        raw = os.path.abspath(opts.from_records)
    else:
        raw = os.path.abspath(os.path.join(opts.corpus, "raw"))
        logs = os.path.abspath(os.path.join(opts.corpus, "logs"))
        shutil.rmtree(raw, ignore_errors=True)
        os.makedirs(logs, exist_ok=True)
        probe = subprocess.run([opts.python, "-c", "import tvm, pytest; print(tvm.__version__)"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            print(f"harvest: {opts.python} cannot import tvm and pytest:\n{probe.stderr[-600:]}")
            return 2
        print(f"harvest: TVM {probe.stdout.strip()} from {opts.python}")
        run_tests(opts, raw, logs)
    if not os.path.isdir(os.path.join(raw, "records")):
        print(f"harvest: no recordings in {raw}")
        return 1
    return 0 if build_corpus(raw, opts.corpus, hints) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
