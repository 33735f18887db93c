#!/usr/bin/env python3
"""Generate a kernel whose device code is one block of N statements, for the cse scaling benchmark.

    python3 bench/gen_cse_block.py --stmts N [-o OUT]

The output is deterministic for a given N (no randomness at all). It is a
single `@T.prim_func`, `cse_block`: after `T.device_entry()` and the thread
ids come N stores in one statement sequence, and each of them has a
subexpression of its own written twice,

    A[(tx * n + k) % 65536] = B[(tx * n + k) % 65536] * T.float32(0.5)

(the store index and the load index; k = 0 .. N-1, so no two statements
share it, and n is a parameter, so simplify keeps it). cse binds each index
once (`cse_vK = (tx * n + k) % 65536` before its statement), then `tx * n`,
which every one of those bindings computes. One source line per statement:
N = 65536 is about 5.2 MB, inside the frontend's 64 MiB input limit.
"""
import argparse
import sys


def generate(stmts):
    lines = [
        "# from tvm.script import tirx as T",
        "",
        "@T.prim_func",
        "def cse_block(A: T.Buffer((65536,), \"float32\"), B: T.Buffer((65536,), \"float32\"), "
        "n: T.int32):",
        "    T.device_entry()",
        "    bx = T.cta_id([64])",
        "    tx = T.thread_id([256])",
    ]
    for k in range(stmts):
        idx = "(tx * n + %d) %% 65536" % k
        lines.append("    A[%s] = B[%s] * T.float32(0.5)" % (idx, idx))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stmts", type=int, required=True, help="statements in the block")
    ap.add_argument("-o", "--output", default="-", help="output file ('-' is standard output)")
    a = ap.parse_args()
    if a.stmts < 1:
        ap.error("--stmts must be at least 1")
    text = generate(a.stmts)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


if __name__ == "__main__":
    main()
