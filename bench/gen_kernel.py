#!/usr/bin/env python3
"""Generate one realistic ~200-line TIRx kernel for the compile-latency benchmark.

    python3 bench/gen_kernel.py [--lines N] [-o OUT]

The output is deterministic for a given --lines (no randomness at all). It is
a single `@T.prim_func`, a fused row-wise kernel in the style of the doc
kernels: each CTA takes 8 rows of X (one per warp), and the body repeats a
"stage" until it reaches about N lines (default 200). A stage stages a tile of
X and of a weight matrix W in shared memory (unrolled, T.cta_sync() between),
does a small matrix-vector product into a local accumulator (range, T.unroll
and T.grid loops), reduces across the warp with T.tvm_warp_shuffle_xor
(max, then a sum of exponentials: an online softmax), reduces across warps
through shared memory under if/else, and writes Y and Stats with bounds checks
and data-dependent gathers through an int32 index buffer. Only constructs that
the current pipeline takes through --emit=ptx are used (no tile primitives).
"""
import argparse
import re
import sys

ROWS_PER_CTA = 8  # one row per warp
THREADS = ROWS_PER_CTA * 32
COLS = 256  # columns of X and Y
TILE = 32  # rows of W staged per stage
VEC = COLS // 32  # elements each lane owns in a row


def header():
    return [
        "# from tvm.script import tirx as T",
        "",
        "@T.prim_func",
        "def fused_rows(X: T.Buffer((4096, %d), \"float32\"), W: T.Buffer((%d, %d), \"float32\"), "
        "Bias: T.Buffer((%d,), \"float32\"), Gather: T.Buffer((4096,), \"int32\"), "
        "Y: T.Buffer((4096, %d), \"float32\"), Stats: T.Buffer((4096, 2), \"float32\"), "
        "n_rows: T.int32, eps: T.float32):" % (COLS, COLS, COLS, COLS, COLS),
    ]


def prologue():
    return [
        "T.device_entry()",
        "bx = T.cta_id([512])",
        "tx = T.thread_id([%d])" % THREADS,
        "lane: T.int32 = tx % 32",
        "warp: T.int32 = tx // 32",
        "row: T.int32 = bx * %d + warp" % ROWS_PER_CTA,
        "src: T.int32 = Gather[row] % 4096",
        "Xs = T.alloc_shared((%d, %d), \"float32\")" % (ROWS_PER_CTA, COLS),
        "Ws = T.alloc_shared((%d, %d), \"float32\")" % (TILE, COLS),
        "red = T.alloc_shared((%d,), \"float32\")" % (2 * ROWS_PER_CTA),
        "acc = T.alloc_local((%d,), \"float32\")" % VEC,
        "y = T.alloc_local((%d,), \"float32\")" % VEC,
        "for v in T.unroll(%d):" % VEC,
        "    acc[v] = T.float32(0.0)",
        "    y[v] = Bias[lane + v * 32]",
        "run_max: T.float32 = T.float32(-1.0e30)",
        "run_sum: T.float32 = T.float32(0.0)",
        "sq: T.float32 = T.float32(0.0)",
    ]


def stage(s):
    """One stage; s varies the constants, the activation and the tile offset."""
    scale = [0.5, 0.25, 0.125, 0.0625, 2.0, 1.5][s % 6]
    w0 = (s * TILE) % COLS
    act = ["T.max(t, T.float32(0.0))", "t * T.float32(0.5)", "T.min(t, T.float32(6.0))"][s % 3]
    L = [
        "# stage %d: tile of X and rows %d..%d of W into shared memory" % (s, w0, w0 + TILE - 1),
        "for v in T.unroll(%d):" % VEC,
        "    if row < n_rows:",
        "        Xs[warp, lane + v * 32] = X[src, lane + v * 32] * T.float32(%r)" % scale,
        "    else:",
        "        Xs[warp, lane + v * 32] = T.float32(0.0)",
        "for r in range(%d):" % (TILE // 4),
        "    for q in T.unroll(4):",
        "        Ws[r * 4 + q, tx] = W[%sr * 4 + q, tx]" % ("%d + " % w0 if w0 else ""),
        "T.cuda.cta_sync()",
        "for k, v in T.grid(%d, %d):" % (TILE, VEC),
        "    acc[v] = acc[v] + Xs[warp, %s] * Ws[k, lane + v * 32]"
        % ("(k + %d) %% %d" % (w0, COLS) if w0 else "k"),
        "m: T.float32 = T.float32(-1.0e30)",
        "for v in T.unroll(%d):" % VEC,
        "    t: T.float32 = acc[v] + y[v]",
        "    y[v] = %s" % act,
        "    m = T.max(m, y[v])",
        "for off in T.unroll(5):",
        "    m = T.max(m, T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), m, 16 >> off, 32, 32))",
        "new_max: T.float32 = T.max(run_max, m)",
        "e: T.float32 = T.float32(0.0)",
        "for v in T.unroll(%d):" % VEC,
        "    e = e + T.exp(y[v] - new_max)",
        "    sq = sq + y[v] * y[v]",
        "e = e + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), e, 16, 32, 32)",
        "e = e + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), e, 8, 32, 32)",
        "e = e + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), e, 4, 32, 32)",
        "e = e + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), e, 2, 32, 32)",
        "e = e + T.tvm_warp_shuffle_xor(T.uint32(0xFFFFFFFF), e, 1, 32, 32)",
        "run_sum = run_sum * T.exp(run_max - new_max) + e",
        "run_max = new_max",
        "if lane == 0:",
        "    red[warp] = run_max",
        "    red[warp + %d] = run_sum" % ROWS_PER_CTA,
        "T.cuda.cta_sync()",
        "if warp == 0:",
        "    if lane < %d:" % ROWS_PER_CTA,
        "        red[lane] = T.max(red[lane], red[(lane + 1) %% %d])" % ROWS_PER_CTA,
        "    else:",
        "        red[lane %% %d] = red[lane %% %d] + eps" % (2 * ROWS_PER_CTA, 2 * ROWS_PER_CTA),
        "T.cuda.cta_sync()",
        "for v in T.unroll(%d):" % VEC,
        "    acc[v] = acc[v] * T.float32(%r) + red[warp] * eps" % (1.0 / (s + 2)),
    ]
    # Stage-local scalars get a per-stage suffix (a name is bound once per scope).
    ren = {"m": "m%d" % s, "new_max": "new_max%d" % s, "e": "e%d" % s, "t": "t%d" % s}
    return [re.sub(r"\b(m|new_max|e|t)\b(?![.(])", lambda g: ren[g.group(1)], l)
            if not l.lstrip().startswith("#") else l for l in L]


def epilogue():
    return [
        "# epilogue: normalize and write back",
        "inv: T.float32 = T.float32(1.0) / T.max(run_sum, eps)",
        "rstd: T.float32 = T.float32(1.0) / T.sqrt(sq / T.float32(%r) + eps)" % float(COLS),
        "if row < n_rows:",
        "    for v in T.unroll(%d):" % VEC,
        "        Y[row, lane + v * 32] = T.exp(y[v] - run_max) * inv + acc[v] * rstd",
        "    if lane == 0:",
        "        Stats[row, 0] = run_max",
        "        Stats[row, 1] = run_sum",
        "else:",
        "    i: T.int32 = lane",
        "    while i < %d:" % COLS,
        "        Y[row % 4096, i] = T.float32(0.0)",
        "        i = i + 32",
    ]


def generate(lines):
    head, pro, epi = header(), prologue(), epilogue()
    body, s = [], 0
    while len(head) + len(pro) + len(body) + len(epi) < lines:
        body += stage(s)
        s += 1
    out = head + ["    " + l for l in pro + body + epi]
    return "\n".join(out) + "\n", s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=200, help="approximate line count (default 200)")
    ap.add_argument("-o", "--output", default="-", help="output file ('-' is standard output)")
    a = ap.parse_args()
    text, stages = generate(a.lines)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    sys.stderr.write("gen_kernel: %d lines, %d bytes, %d stages\n"
                     % (text.count("\n"), len(text.encode()), stages))


if __name__ == "__main__":
    main()
