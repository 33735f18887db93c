#!/usr/bin/env python3
"""Conformance of tirxc against a directory of TVM-printed TIRx programs.

Every program in the directory was printed by Apache TVM (`.script()`), so
TVM's print is the reference: tirxc must parse it, print it back byte for
byte, reach a fixed point when re-reading its own print, and compile the
native kernels to PTX that ptxas accepts. This tool measures those rates,
classes the failures and, with --expect, checks them against a checked-in
floor (tests/conformance/expected_summary.txt) so that a regression fails.

It only runs tirxc and ptxas as subprocesses; it never changes the input
directory. Python 3 standard library only. See docs/conformance.md,
"Measuring conformance", for the measures and the output files.
"""

import argparse
import collections
import concurrent.futures
import csv
import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77  # ctest's SKIP_RETURN_CODE

# A call of a tile primitive (T.tile.copy(...), T.cta.gemm(...), Tx.wg...):
# kernels with one are counted apart from native kernels.
TILE_CALL = re.compile(r"\b(T\.tile|Tx|T\.warp|T\.cta|T\.wg|T\.warpgroup|T\.cluster|T\.thread)\.([A-Za-z_][\w.]*)\(")
S_TIR = re.compile(rb"@T\.prim_func\([^)]*\bs_tir=True")
# TVM's printer may put `# from tvm.script import tirx as T` lines on top;
# measure (b') compares with those lines removed from both sides.
IMPORT_HEADER = re.compile(rb"^# from [\w.]+ import [\w, ]+( as \w+)?\n", re.M)
LOCATED_ERROR = re.compile(r"^\S[^\n]*?:\d+:\d+: error: ", re.M)
# tirxc's arch-requirement diagnostic ("T.ptx.ld: a 256-bit load needs sm_100
# or newer, but the target is sm_90a"; target/cuda/ptx_requires.def): the sm
# it names. The tcgen05 helpers say "need an sm_100a, ... target".
NEEDS_ARCH = re.compile(r"error: [^\n]*?\bneeds? (?:an? )?(?:arch-specific )?sm_(\d+)")

SUBSETS = ("all", "native", "tile", "s_tir", "no_s_tir", "native_no_s_tir")
SUBSET_TITLES = {
    "all": "all",
    "native": "native",
    "tile": "tile-prim",
    "s_tir": "s_tir",
    "no_s_tir": "no-s_tir",
    "native_no_s_tir": "native no-s_tir",
}
# Counts that --expect treats as floors (a lower count is a regression).
FLOOR_MEASURES = ("parse", "identical", "identical_nohdr", "fixpoint", "ptx", "ptxas")
FLOOR_SUBSETS = ("all", "native", "tile", "s_tir")


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="conform.py",
        description="Measure tirxc on a directory of TVM-printed TIRx programs.",
    )
    ap.add_argument("dir", help="corpus: a folder with kernels/*.tirx (and manifest.tsv), or any folder of *.tirx files")
    ap.add_argument("--tirxc", help="tirxc binary (default $TIRXC, else build/bin/tirxc, build-dbg/bin/tirxc, PATH)")
    ap.add_argument("--ptxas", help="ptxas binary (default $PTXAS, else /usr/local/cuda/bin/ptxas, PATH)")
    ap.add_argument("--no-ptxas", action="store_true", help="do not assemble; ptxas counts stay 0")
    ap.add_argument("--manifest", help="manifest.tsv (default DIR/manifest.tsv when present)")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "tirx-conform"), help="results folder")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="files measured in parallel")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per tirxc call (beyond: a TIMEOUT)")
    ap.add_argument("--default-arch", default="sm_90a", help="arch for files whose manifest names no sm_ arch")
    ap.add_argument("--expect", help="expected summary: fail (exit 1) when a count falls below its floor")
    ap.add_argument("--update", action="store_true", help="rewrite the --expect file from this run")
    ap.add_argument("--skip-missing", action="store_true", help="exit 77 (skip) when DIR, tirxc or ptxas is absent")
    ap.add_argument("--compare", metavar="PER_FILE_TSV", help="list the files that pass a measure there but not now")
    ap.add_argument("--quiet", action="store_true", help="print only the verdict, not the summary")
    return ap.parse_args(argv)


def find_tool(explicit, env, candidates):
    for c in [explicit, os.environ.get(env)] + candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def corpus_files(root):
    """The .tirx files to measure and the folder their manifest names are relative to."""
    kdir = os.path.join(root, "kernels")
    base = kdir if os.path.isdir(kdir) else root
    found = []
    for dirpath, _, names in os.walk(base):
        for n in names:
            if n.endswith(".tirx"):
                found.append(os.path.relpath(os.path.join(dirpath, n), base))
    return base, sorted(found)


def read_manifest(path):
    if not path or not os.path.isfile(path):
        return {}
    with open(path, newline="") as f:
        return {row["file"]: row for row in csv.DictReader(f, delimiter="\t")}


def default_label(row):
    if not row:
        return "default (no manifest row)"
    return f"default (manifest: {row.get('arch') or 'empty'})"


def arch_for(row, default):
    """The manifest's arch column may list several archs; the last sm_ one is used."""
    archs = [a for a in row.get("arch", "").split(",") if a.startswith("sm_")]
    return (archs[-1], True) if archs else (default, False)


def tvm_compiled_for_cuda(row):
    """Did TVM's test compile this program for CUDA and expect it to work? The
    manifest's origin names how the harvest met it (compile, script, ...);
    its arch is an sm_ list or cuda-default for a CUDA target."""
    archs = row.get("arch", "")
    cuda = archs == "cuda-default" or any(a.startswith("sm_") for a in archs.split(","))
    return ("compile" in row.get("origin", "") and cuda
            and row.get("compile_inside_pytest_raises", "no") != "yes")


# ---- failure classes -------------------------------------------------------


def normalise(line, path):
    """First error line with what differs between files (paths, numbers) replaced."""
    s = line.strip().replace(path, "FILE").replace(os.path.basename(path), "FILE")
    s = re.sub(r"(?<![\w.])(?:/[\w.+-]+)+/?", "PATH", s)
    s = re.sub(r"(?<![\w.])[\w-]+\.(?:tirx|ptx|cu)(?=[:\s]|$)", "FILE", s)
    s = re.sub(r"\b(FILE|PATH|<stdin>):\d+(?::\d+)?:?", r"\1:", s)
    s = re.sub(r"\bline \d+", "line N", s)
    s = re.sub(r"(?<![\w.])-?\d+(?![\w.])", "N", s)
    return s[:200]


def first_error_line(text):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if re.search(r"\berror\b|fatal|Error", ln):
            return ln
    return lines[0] if lines else "(no message)"


class Call:
    """One finished subprocess: rc is an int, or None after a timeout."""

    def __init__(self, cmd, timeout):
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=timeout)
            self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            self.rc, self.out, self.err = None, b"", ""
        self.timeout = timeout

    @property
    def ok(self):
        return self.rc == 0

    def abnormal(self):
        """'crash', 'timeout', 'internal' or None: the first two are never acceptable."""
        if self.rc is None:
            return "timeout"
        if self.rc < 0:
            return "crash"
        if self.rc in (3, 4):  # tirx_status internal error / out of memory
            return "internal"
        return None

    def failure_class(self, stage, path):
        if self.rc is None:
            return f"{stage}: TIMEOUT (> {self.timeout:g}s)"
        if self.rc < 0:
            try:
                name = signal.Signals(-self.rc).name
            except ValueError:
                name = str(-self.rc)
            return f"{stage}: CRASH signal {name}"
        return f"{stage}: " + normalise(first_error_line(self.err), path)

    def located(self):
        return self.rc == 1 and LOCATED_ERROR.search(self.err) is not None


# ---- one file --------------------------------------------------------------


class Measurer:
    def __init__(self, opts, base, manifest, tirxc, ptxas, diffs_dir):
        self.opts, self.base, self.manifest = opts, base, manifest
        self.tirxc, self.ptxas, self.diffs_dir = tirxc, ptxas, diffs_dir

    def tirx(self, *args):
        return Call([self.tirxc, *args], self.opts.timeout)

    def note_failure(self, r, stage, call, path):
        cls = call.failure_class(stage, path)
        r["failures"].append(cls)
        kind = call.abnormal() if stage != "ptxas" else None
        if kind:
            r["abnormal"].append((kind, cls))

    def measure(self, name):
        path = os.path.join(self.base, name)
        with open(path, "rb") as f:
            src = f.read()
        text = src.decode(errors="replace")
        row = self.manifest.get(name, {})
        ops = [m.group(1) + "." + m.group(2) for m in TILE_CALL.finditer(text)]
        arch, arch_known = arch_for(row, self.opts.default_arch)
        r = {
            "file": name,
            "tile": bool(ops),
            "ops": ops,
            "s_tir": S_TIR.search(src) is not None,
            "arch": arch,
            "arch_label": f"manifest {row.get('arch', '')}" if arch_known else default_label(row),
            "tvm_raises": row.get("compile_inside_pytest_raises", "no"),
            "tvm_compiled": tvm_compiled_for_cuda(row),
            "failures": [],
            "abnormal": [],
            "reject": "",
            "cuda_default": row.get("arch", "") == "cuda-default",
            "newer_arch": "",  # the arch a needs-a-newer-arch kernel was retried at
            "newer_ptxas": False,
        }
        r.update({m: False for m in FLOOR_MEASURES})
        with tempfile.TemporaryDirectory(prefix="conform-") as td:
            self.printing(r, path, src, text, td)
            if r["parse"]:
                self.compiling(r, path, arch, td)
        return r

    def printing(self, r, path, src, text, td):
        first = self.tirx(path, "--emit=tirx")
        r["parse"] = first.ok
        if not first.ok:
            self.note_failure(r, "parse", first, path)
            if first.located():
                r["reject"] = "parse"
            return
        r["identical"] = first.out == src
        r["identical_nohdr"] = IMPORT_HEADER.sub(b"", first.out) == IMPORT_HEADER.sub(b"", src)
        if not r["identical"]:
            self.write_diff(r["file"], text, first.out.decode(errors="replace"))
        again_in = os.path.join(td, "print1.tirx")
        with open(again_in, "wb") as f:
            f.write(first.out)
        again = self.tirx(again_in, "--emit=tirx")
        r["fixpoint"] = again.ok and again.out == first.out
        if not again.ok:
            self.note_failure(r, "reparse", again, again_in)
        elif not r["fixpoint"]:
            r["failures"].append("fixpoint: second print differs from first")

    def compiling(self, r, path, arch, td):
        ptx_path = os.path.join(td, "k.ptx")
        ptx = self.tirx(path, "--emit=ptx", f"--arch={arch}", "-o", ptx_path)
        r["ptx"] = ptx.ok
        if not ptx.ok:
            self.note_failure(r, "ptx", ptx, path)
            if ptx.located():
                r["reject"] = "ptx"
                self.retry_newer_arch(r, path, arch, ptx, td)
            return
        if not self.ptxas:
            return
        asm = self.assemble(arch, ptx_path, td)
        r["ptxas"] = asm.ok
        if not asm.ok:
            self.note_failure(r, "ptxas", asm, ptx_path)

    def assemble(self, arch, ptx_path, td):
        return Call([self.ptxas, f"-arch={arch}", ptx_path, "-o", os.path.join(td, "k.cubin")], 60)

    def retry_newer_arch(self, r, path, arch, ptx, td):
        """TVM's Target("cuda") takes the GPU's arch, and a test needing a
        Blackwell GPU records none (cuda-default). When tirxc refuses such a
        kernel at the default arch because an instruction needs a newer one,
        compile it again for the arch-specific row of the newest sm the
        diagnostics name (sm_100 -> sm_100a, as tirxc picks for that GPU).
        Only the newer_* fields change: the default-arch measures stand."""
        sms = [int(m) for m in NEEDS_ARCH.findall(ptx.err)]
        if not r["cuda_default"] or not sms:
            return
        sm = max(sms)
        newer = f"sm_{sm}a" if sm >= 90 else f"sm_{sm}"
        if newer == arch:
            return
        r["newer_arch"] = newer
        ptx_path = os.path.join(td, "newer.ptx")
        again = self.tirx(path, "--emit=ptx", f"--arch={newer}", "-o", ptx_path)
        r["newer_ptxas"] = again.ok and bool(self.ptxas) and self.assemble(newer, ptx_path, td).ok

    def write_diff(self, name, want, got):
        lines = difflib.unified_diff(
            want.splitlines(True), got.splitlines(True), "tvm/" + name, "tirxc/" + name, n=1
        )
        out = os.path.join(self.diffs_dir, name.replace(os.sep, "__") + ".diff")
        with open(out, "w") as f:
            f.writelines(lines)


# ---- counting --------------------------------------------------------------


def in_subset(r, s):
    return {
        "all": True,
        "native": not r["tile"],
        "tile": r["tile"],
        "s_tir": r["s_tir"],
        "no_s_tir": not r["s_tir"],
        "native_no_s_tir": not r["tile"] and not r["s_tir"],
    }[s]


def count_all(results):
    """counts[subset][measure]: the numbers the summary and the floors use."""
    counts = {}
    for s in SUBSETS:
        rs = [r for r in results if in_subset(r, s)]
        c = {"files": len(rs)}
        for m in FLOOR_MEASURES:
            c[m] = sum(1 for r in rs if r[m])
        raises = [r for r in rs if r["tvm_raises"] == "yes"]
        c["tvm_raises"] = len(raises)
        c["tvm_raises_rejected"] = sum(1 for r in raises if r["reject"])
        c["tvm_raises_rejected_parse"] = sum(1 for r in raises if r["reject"] == "parse")
        c["tvm_raises_rejected_ptx"] = sum(1 for r in raises if r["reject"] == "ptx")
        c["tvm_raises_ptx"] = sum(1 for r in raises if r["ptx"])
        c["tvm_raises_ptxas"] = sum(1 for r in raises if r["ptxas"])
        compiled = [r for r in rs if r["tvm_compiled"]]
        c["tvm_compiled"] = len(compiled)
        c["tvm_compiled_ptx"] = sum(1 for r in compiled if r["ptx"])
        c["tvm_compiled_ptxas"] = sum(1 for r in compiled if r["ptxas"])
        newer = [r for r in compiled if r["newer_arch"]]
        c["tvm_compiled_newer_arch"] = len(newer)
        c["tvm_compiled_newer_arch_ptxas"] = sum(1 for r in newer if r["newer_ptxas"])
        for kind in ("crash", "timeout", "internal"):
            c[kind] = sum(1 for r in rs for k, _ in r["abnormal"] if k == kind)
        counts[s] = c
    return counts


def frac(a, b):
    return f"{a}/{b} {100.0 * a / b:5.1f}%" if b else f"{a}/0"


def summary_text(results, counts, info):
    out = []
    p = out.append
    p(f"conformance: {len(results)} files in {info['base']}")
    p(f"  tirxc {info['tirxc']}; ptxas {info['ptxas'] or '(none: not assembled)'}; "
      f"manifest {info['manifest'] or '(none)'}; {info['seconds']:.0f}s, {info['jobs']} jobs, {info['timeout']:g}s per call")
    p("  columns: native = no tile-primitive call, tile-prim = T.tile./T.cta./T.wg./... calls, "
      "s_tir = @T.prim_func(s_tir=True)")
    p("")
    head = f"{'measure':52}" + "".join(f"{SUBSET_TITLES[s]:>19}" for s in SUBSETS)
    p(head)

    def row(title, num, den):
        cells = "".join(f"{frac(counts[s][num], counts[s][den] if den else 0):>19}" for s in SUBSETS)
        p(f"{title:52}{cells}")

    p(f"{'files':52}" + "".join(f"{counts[s]['files']:>19}" for s in SUBSETS))
    row("(a) parses (--emit=tirx exits 0)", "parse", "files")
    row("(b) print byte-identical to TVM's   [of files]", "identical", "files")
    row("(b) print byte-identical to TVM's   [of parsed]", "identical", "parse")
    row("(b') same, '# from' header ignored  [of parsed]", "identical_nohdr", "parse")
    row("(c) fixed point of print . parse    [of parsed]", "fixpoint", "parse")
    row("(d/e) --emit=ptx succeeds           [of files]", "ptx", "files")
    row("(d/e) ptxas accepts                 [of files]", "ptxas", "files")
    row("(d/e) ptxas accepts                 [of ptx ok]", "ptxas", "ptx")
    p("")
    p("TVM expected the compile to fail (manifest compile_inside_pytest_raises=yes):")
    p(f"{'':52}" + "".join(f"{SUBSET_TITLES[s]:>19}" for s in SUBSETS))
    p(f"{'  files':52}" + "".join(f"{counts[s]['tvm_raises']:>19}" for s in SUBSETS))
    row("  tirxc also rejects, located error", "tvm_raises_rejected", "tvm_raises")
    row("    ... at parse (--emit=tirx)", "tvm_raises_rejected_parse", "tvm_raises")
    row("    ... at lowering/codegen (--emit=ptx)", "tvm_raises_rejected_ptx", "tvm_raises")
    row("  tirxc compiles it (--emit=ptx ok)", "tvm_raises_ptx", "tvm_raises")
    row("    ... and ptxas accepts", "tvm_raises_ptxas", "tvm_raises")
    p("")
    p("TVM compiled it for CUDA (manifest origin compile, arch sm_* or cuda-default, not in pytest.raises):")
    p(f"{'':52}" + "".join(f"{SUBSET_TITLES[s]:>19}" for s in SUBSETS))
    p(f"{'  files':52}" + "".join(f"{counts[s]['tvm_compiled']:>19}" for s in SUBSETS))
    row("  --emit=ptx succeeds", "tvm_compiled_ptx", "tvm_compiled")
    row("  ptxas accepts", "tvm_compiled_ptxas", "tvm_compiled")
    # cuda-default kernels refused at the default arch by an arch-requirement
    # diagnostic, compiled again at the arch it names (Measurer.retry_newer_arch).
    newer = sorted({r["newer_arch"] for r in results if r["newer_arch"]}) or ["the arch it names"]
    p(f"  needs a newer arch than the default: located error at {info['default_arch']}, "
      f"ptxas accepts at {'/'.join(newer)}:")
    row("    (cuda-default kernels; of those refused so)", "tvm_compiled_newer_arch_ptxas",
        "tvm_compiled_newer_arch")
    p("")
    p("(d) native kernels by --arch (from the manifest's arch column, else the default):")
    by_arch = collections.defaultdict(list)
    for r in results:
        if not r["tile"]:
            by_arch[(r["arch"], r["arch_label"])].append(r)
    for (arch, label), rs in sorted(by_arch.items()):
        ptx = sum(1 for r in rs if r["ptx"])
        asm = sum(1 for r in rs if r["ptxas"])
        p(f"  --arch={arch:8} {label[:40]:40} n={len(rs):5}  ptx ok {frac(ptx, len(rs)):>17}  ptxas ok {frac(asm, len(rs)):>17}")
    p("")
    calls, files = collections.Counter(), collections.Counter()
    for r in results:
        calls.update(r["ops"])
        files.update(set(r["ops"]))
    p(f"(e) tile-primitive ops in {counts['tile']['files']} kernels (calls, files):")
    for op, n in calls.most_common():
        p(f"  {op:44} {n:6} {files[op]:6}")
    p("")
    classes = failure_classes(results)
    total = sum(n for n, _ in classes.values())
    p(f"failure classes: {total} failures in {len(classes)} classes (first error line, paths and numbers normalised); top 20:")
    for cls, (n, example) in sorted(classes.items(), key=lambda kv: (-kv[1][0], kv[0]))[:20]:
        p(f"  {n:6}  {cls}\n          e.g. {example}")
    p("")
    bad = [(k, cls, r["file"]) for r in results for k, cls in r["abnormal"]]
    crashes = [b for b in bad if b[0] in ("crash", "timeout")]
    internal = [b for b in bad if b[0] == "internal"]
    p(f"CRASHES / TIMEOUTS: {len(crashes)}" if crashes else "crashes (signal) / timeouts: none")
    for _, cls, f in crashes:
        p(f"  !!! {cls}: {f}")
    p(f"internal errors / out of memory (exit 3/4): {len(internal) or 'none'}")
    for _, cls, f in internal[:20]:
        p(f"  {cls}: {f}")
    return "\n".join(out) + "\n"


def failure_classes(results):
    classes = {}
    for r in results:
        for cls in r["failures"]:
            n, ex = classes.get(cls, (0, r["file"]))
            classes[cls] = (n + 1, ex)
    return classes


def write_results(out_dir, results, counts, text):
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(counts, f, indent=1, sort_keys=True)
        f.write("\n")
    cols = ("file", "tile", "s_tir", "parse", "identical", "identical_nohdr", "fixpoint", "arch", "ptx", "ptxas",
            "tvm_raises", "reject", "newer_arch", "newer_ptxas", "first_failure")
    with open(os.path.join(out_dir, "per_file.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in results:
            vals = [r[c] for c in cols[:-1]] + [r["failures"][0] if r["failures"] else ""]
            f.write("\t".join(str(v) for v in vals) + "\n")
    with open(os.path.join(out_dir, "failure_classes.tsv"), "w") as f:
        f.write("count\tclass\texample\n")
        classes = failure_classes(results)
        for cls, (n, ex) in sorted(classes.items(), key=lambda kv: (-kv[1][0], kv[0])):
            f.write(f"{n}\t{cls}\t{ex}\n")


# ---- the floor -------------------------------------------------------------


def floor_values(counts, with_ptxas):
    vals = collections.OrderedDict()
    for s in FLOOR_SUBSETS:
        vals[f"corpus.{s}"] = counts[s]["files"]
    for m in FLOOR_MEASURES:
        if m == "ptxas" and not with_ptxas:
            continue
        for s in FLOOR_SUBSETS:
            vals[f"{m}.{s}"] = counts[s][m]
    # TVM's expected failures that tirx-c rejects too, and what TVM compiled
    # for CUDA that ptxas accepts from tirx-c.
    for s in FLOOR_SUBSETS:
        vals[f"tvm_raises_rejected.{s}"] = counts[s]["tvm_raises_rejected"]
    if with_ptxas:
        for s in FLOOR_SUBSETS:
            vals[f"tvm_compiled_ptxas.{s}"] = counts[s]["tvm_compiled_ptxas"]
    vals["max.internal"] = counts["all"]["internal"]
    return vals


def read_expect(path):
    vals = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or not parts[1].isdigit():
                raise SystemExit(f"{path}:{n}: expected 'KEY COUNT', got {line!r}")
            vals[parts[0]] = int(parts[1])
    return vals


def write_expect(path, vals, corpus):
    with open(path, "w") as f:
        f.write("# Conformance floor for the TVM corpus (tools/conformance/conform.py --expect).\n")
        f.write("# corpus.*: the corpus must have exactly these file counts.\n")
        f.write("# MEASURE.SUBSET: at least this many files must pass the measure (a floor).\n")
        f.write("# max.internal: at most this many internal errors; crashes and timeouts are never allowed.\n")
        f.write(f"# Written by --update from {os.path.basename(os.path.normpath(corpus))}; regenerate with\n")
        f.write("#   cmake --build build --target conformance-update   (docs/conformance.md)\n")
        for k, v in vals.items():
            f.write(f"{k} {v}\n")


def check_expect(expected, actual, counts, with_ptxas):
    """Messages for each regression, and hints where a floor can be raised."""
    bad, hints = [], []
    crashes = counts["all"]["crash"] + counts["all"]["timeout"]
    if crashes:
        bad.append(f"{crashes} crash(es)/timeout(s): always a regression (see summary.txt)")
    for key, want in expected.items():
        if key.startswith(("ptxas.", "tvm_compiled_ptxas.")) and not with_ptxas:
            continue
        if key not in actual:
            bad.append(f"{key}: unknown key in the expected summary")
            continue
        got = actual[key]
        if key.startswith("corpus."):
            if got != want:
                bad.append(f"{key}: the corpus has {got} files, the expectation was written for {want}")
        elif key.startswith("max."):
            if got > want:
                bad.append(f"{key}: {got} > {want}")
            elif got < want:
                hints.append(f"{key}: {got} < {want}")
        elif got < want:
            bad.append(f"{key}: {got} < floor {want}")
        elif got > want:
            hints.append(f"{key}: {got} > floor {want}")
    return bad, hints


# ---- main ------------------------------------------------------------------


def missing(opts, what):
    print(f"conform: {what}")
    return SKIP if opts.skip_missing else 2


def main(argv):
    opts = parse_args(argv)
    if opts.update and not opts.expect:
        print("conform: --update needs --expect FILE")
        return 2
    if not os.path.isdir(opts.dir):
        return missing(opts, f"no corpus at {opts.dir}; nothing measured")
    tirxc = find_tool(opts.tirxc, "TIRXC", [os.path.join(REPO, "build/bin/tirxc"),
                                            os.path.join(REPO, "build-dbg/bin/tirxc"), shutil.which("tirxc")])
    if not tirxc:
        return missing(opts, "no tirxc found (give --tirxc)")
    ptxas = None
    if not opts.no_ptxas:
        ptxas = find_tool(opts.ptxas, "PTXAS", ["/usr/local/cuda/bin/ptxas", shutil.which("ptxas")])
        if not ptxas and opts.skip_missing:
            return missing(opts, "no ptxas found (CUDA toolkit absent); skipped")
    base, names = corpus_files(opts.dir)
    if not names:
        return missing(opts, f"no .tirx files under {base}")
    baseline = load_baseline(opts.compare) if opts.compare else None
    mpath = opts.manifest or os.path.join(opts.dir, "manifest.tsv")
    manifest = read_manifest(mpath)
    os.makedirs(opts.out, exist_ok=True)
    diffs = os.path.join(opts.out, "fidelity-diffs")
    shutil.rmtree(diffs, ignore_errors=True)
    os.makedirs(diffs)

    m = Measurer(opts, base, manifest, os.path.abspath(tirxc), ptxas, diffs)
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as ex:
        results = list(ex.map(m.measure, names))
    info = {"base": base, "tirxc": tirxc, "ptxas": ptxas, "manifest": mpath if manifest else None,
            "seconds": time.time() - t0, "jobs": opts.jobs, "timeout": opts.timeout,
            "default_arch": opts.default_arch}
    counts = count_all(results)
    text = summary_text(results, counts, info)
    write_results(opts.out, results, counts, text)
    if not opts.quiet:
        sys.stdout.write(text)
    print(f"conform: results in {opts.out} (summary.txt, summary.json, per_file.tsv, failure_classes.tsv, fidelity-diffs/)")
    if baseline is not None:
        compare(opts.compare, baseline, results)
    return verdict(opts, counts, ptxas is not None)


def load_baseline(path):
    """An earlier per_file.tsv (or the results folder holding one), read before it is overwritten."""
    if os.path.isdir(path):
        path = os.path.join(path, "per_file.tsv")
    with open(path, newline="") as f:
        return {row["file"]: row for row in csv.DictReader(f, delimiter="\t")}


def compare(path, before, results):
    """Per-file changes against the baseline: which files a drop below the floor comes from."""
    lost, gained = [], 0
    for r in results:
        old = before.get(r["file"])
        if old is None:
            continue
        for m in FLOOR_MEASURES:
            was = old.get(m) == "True"
            if was and not r[m]:
                lost.append(f"{m}: {r['file']}: {r['failures'][0] if r['failures'] else ''}")
            gained += (not was) and r[m]
    print(f"conform: against {path}: {len(lost)} measure(s) lost, {gained} gained")
    for line in lost:
        print(f"  lost {line}")


def verdict(opts, counts, with_ptxas):
    crashes = counts["all"]["crash"] + counts["all"]["timeout"]
    if not opts.expect:
        return 1 if crashes else 0
    actual = floor_values(counts, with_ptxas)
    if opts.update:
        if not with_ptxas:
            print("conform: --update needs ptxas (the floor includes the ptxas counts)")
            return 2
        if crashes:
            print(f"conform: {crashes} crash(es)/timeout(s); not writing a floor that would accept them")
            return 1
        write_expect(opts.expect, floor_values(counts, True), opts.dir)
        print(f"conform: wrote {opts.expect}")
        return 0
    bad, hints = check_expect(read_expect(opts.expect), actual, counts, with_ptxas)
    for h in hints:
        print(f"conform: better than the floor: {h}")
    if hints and not bad:
        print("conform: raise the floor with --update (docs/conformance.md, 'Updating the floor')")
    for b in bad:
        print(f"conform: REGRESSION: {b}")
    if bad:
        print("conform: per-file results in per_file.tsv; if the drop is intended, rewrite the floor with --update")
        return 1
    print(f"conform: ok, every count at or above the floor in {opts.expect}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
