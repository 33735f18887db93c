#!/usr/bin/env python3
"""Checks tools/conformance/harvest/harvest.py.

usage: harvest_test.py SOURCE_DIR SCRATCH_DIR [PYTHON_WITH_TVM]

Part 1 (always): hand-written plugin recordings are turned into a corpus
with --from-records; the manifest's columns, the deduplication, the file
names and the arch / pytest.raises rules are checked.
Part 2 (when a Python that imports tvm and pytest is given, or $TIRX_HARVEST_PYTHON,
or python3 itself can): the whole harvest runs over the stand-in TVM tests in
harvest_suite/ and the corpus it writes is checked. Without TVM, part 2 is
reported as not run and the test still passes on part 1.
"""

import csv
import json
import os
import shutil
import subprocess
import sys

SRC, SCRATCH = sys.argv[1:3]
PY = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else os.environ.get("TIRX_HARVEST_PYTHON") or sys.executable
HARVEST = os.path.join(SRC, "tools", "conformance", "harvest", "harvest.py")
SUITE = os.path.join(SRC, "tests", "conformance", "harvest_suite")
COLUMNS = ["file", "source_test", "arch", "uses_tile_primitives", "origin", "compile_inside_pytest_raises",
           "n_tests", "sha256_16"]
failures = []
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # the stand-in suite is in the source tree


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def manifest(corpus):
    with open(os.path.join(corpus, "manifest.tsv"), newline="") as f:
        reader = csv.DictReader(f, delimiter="\t")
        return reader.fieldnames, {row["file"]: row for row in reader}


shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)

# ---- part 1: recordings -> corpus --------------------------------------------
raw = os.path.join(SCRATCH, "raw")
os.makedirs(os.path.join(raw, "texts"))
os.makedirs(os.path.join(raw, "records"))
TEXTS = {
    "aaaa000000000001": "# from tvm.script import tirx as T\n\n@T.prim_func\ndef f():\n    T.evaluate(0)\n",
    "aaaa000000000002": "# from tvm.script import tirx as T\n\n@T.prim_func\ndef g(A: T.Buffer((4,), \"int32\")):\n"
                        "    T.tile.copy(A[0:2], A[2:4])\n",
    "aaaa000000000003": "# from tvm.script import tirx as T\n\n@T.prim_func\ndef h():\n    T.evaluate(1)\n",
    "aaaa000000000004": "# from tvm.script import tirx as T\n\n@T.prim_func\ndef k():\n    T.evaluate(2)\n",
}
for sha, text in TEXTS.items():
    with open(os.path.join(raw, "texts", sha + ".tirx"), "w") as f:
        f.write(text)
RECORDS = [
    # f: compiled for two archs by two tests, once inside pytest.raises -> mixed
    {"test": "tirx/codegen/test_a.py::test_one[x-1]", "origin": "compile", "kind": "cuda", "arch": "sm_90a",
     "in_raises": False, "sha": "aaaa000000000001"},
    {"test": "tirx/codegen/test_a.py::test_two", "origin": "compile", "kind": "cuda", "arch": "sm_100a",
     "in_raises": True, "sha": "aaaa000000000001"},
    {"test": "tirx/codegen/test_a.py::test_two", "origin": "structural_equal", "in_raises": False,
     "sha": "aaaa000000000001"},
    # g: a tile kernel compiled with no arch in a Blackwell test file -> the TVM-tree hint
    {"test": "tirx/codegen/test_codegen_blackwell.py::test_tma", "origin": "compile", "kind": "cuda", "arch": "",
     "in_raises": True, "sha": "aaaa000000000002"},
    # h: only ever seen printed -> arch none; k: built for llvm
    {"test": "tirx/test_p.py::test_print", "origin": "script", "in_raises": False, "sha": "aaaa000000000003"},
    {"test": "tirx/test_p.py::test_print", "origin": "compile", "kind": "llvm", "arch": "", "in_raises": False,
     "sha": "aaaa000000000004"},
    {"test": "tirx/test_p.py::test_print", "origin": "script", "in_raises": False,
     "print_error": "ValueError: cannot print"},
]
with open(os.path.join(raw, "records", "1.jsonl"), "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in RECORDS[:4])
with open(os.path.join(raw, "records", "2.jsonl"), "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in RECORDS[4:])
corpus = os.path.join(SCRATCH, "corpus")
p = subprocess.run([sys.executable, HARVEST, "--from-records", raw, corpus], capture_output=True, text=True)
check(p.returncode == 0, f"--from-records builds a corpus ({p.stdout[-300:]}{p.stderr[-300:]})")
check("4 distinct programs" in p.stdout and "1 that TVM could not print" in p.stdout, "the totals are reported")
cols, rows = manifest(corpus)
check(cols == COLUMNS, "manifest.tsv has the corpus columns")
check(sorted(rows) == ["test_a__test_one_x-1__0.tirx", "test_codegen_blackwell__test_tma__0.tirx",
                       "test_p__test_print__0.tirx", "test_p__test_print__1.tirx"],
      f"one file per distinct text, named <test file>__<test>__<n> ({sorted(rows)})")
f_row = rows["test_a__test_one_x-1__0.tirx"]
check(f_row["arch"] == "sm_100a,sm_90a" and f_row["compile_inside_pytest_raises"] == "mixed", "several archs listed; raises mixed")
check(f_row["origin"] == "compile+structural_equal" and f_row["n_tests"] == "2", "origins joined, tests counted")
g_row = rows["test_codegen_blackwell__test_tma__0.tirx"]
check(g_row["arch"] == "sm_100a" and g_row["uses_tile_primitives"] == "yes" and g_row["compile_inside_pytest_raises"] == "yes",
      "an arch-less compile in a Blackwell test gets sm_100a; tile primitives found")
check(rows["test_p__test_print__0.tirx"]["arch"] == "none" and rows["test_p__test_print__1.tirx"]["arch"] == "other:llvm",
      "never compiled: none; another target kind: other:KIND")
with open(os.path.join(corpus, "kernels", "test_p__test_print__0.tirx")) as f:
    check(f.read() == TEXTS["aaaa000000000003"], "the kernel file is the printed text")
p = subprocess.run([sys.executable, HARVEST, "--from-records", raw, "--no-tvm-hints", "--arch-hint",
                    "*test_codegen_blackwell*=sm_103a", corpus], capture_output=True, text=True)
_, rows = manifest(corpus)
check(rows["test_codegen_blackwell__test_tma__0.tirx"]["arch"] == "sm_103a", "--arch-hint GLOB=ARCH")

# ---- part 2: a real harvest ----------------------------------------------------
probe = subprocess.run([PY, "-c", "import tvm, pytest"], capture_output=True)
if probe.returncode != 0:
    print(f"note: {PY} cannot import tvm and pytest: the harvest run itself (part 2) was not checked")
else:
    corpus = os.path.join(SCRATCH, "harvested")
    p = subprocess.run([sys.executable, HARVEST, "--python", PY, SUITE, corpus], capture_output=True, text=True)
    check(p.returncode == 0, f"the harvest runs ({p.stdout[-400:]}{p.stderr[-400:]})")
    _, rows = manifest(corpus)
    by_test = {r["source_test"]: r for r in rows.values()}
    hop = by_test.get("codegen/test_mini_codegen.py::test_compile_for_hopper[32_0]", {})
    check(hop.get("arch") == "sm_90a" and hop.get("n_tests") == "2" and hop.get("origin") == "compile",
          "a compile's target arch; the same program from two parametrizations is one file")
    check(by_test.get("codegen/test_mini_codegen.py::test_compile_default_target", {}).get("arch") == "cuda-default",
          "Target('cuda') with no arch: cuda-default")
    check(by_test.get("codegen/test_mini_codegen.py::test_compile_expected_to_fail", {})
          .get("compile_inside_pytest_raises") == "yes", "a compile inside pytest.raises is marked")
    check(by_test.get("codegen/test_mini_codegen.py::test_llvm_build", {}).get("arch") == "other:llvm", "an llvm build")
    check(by_test.get("test_mini_transform.py::test_structural_equal", {}).get("origin") == "structural_equal",
          "both sides of assert_structural_equal (one text here)")
    check(by_test.get("test_mini_transform.py::test_script_printed", {}).get("origin") == "script", "a test's own .script()")
    check(len(rows) == 7, f"7 distinct programs ({len(rows)})")
    for name, row in rows.items():
        with open(os.path.join(corpus, "kernels", name), "rb") as f:
            data = f.read()
        if not (data.startswith(b"# from tvm.script import") and data.endswith(b"\n")):
            check(False, f"{name} is TVM's print with a final newline")
            break

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
