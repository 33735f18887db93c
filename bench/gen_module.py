#!/usr/bin/env python3
"""Generate a large, valid TIRx module in canonical TVMScript for benchmarks.

    python3 bench/gen_module.py [--lines N] [--seed S] [-o OUT]

The output is deterministic for a given (--lines, --seed): the generator uses
its own random.Random(seed) and nothing else (no time, no hashing of sets).
It is an `@I.ir_module class Module:` of many `@T.prim_func` kernels, each
about 50-200 lines, written the way the canonical printer writes them (4-space
indentation, float32 elided in buffer declarations, typed float literals, minimal
parentheses), using the everyday TIRx constructs: buffer parameters,
T.device_entry(), scope ids, T.alloc_shared / T.alloc_local, scalar sugar,
range / T.unroll / T.grid loops, if/else, stores with arithmetic,
T.cuda.cta_sync() and warp shuffles. The text is also plain Python, so
CPython's ast.parse accepts it too.
"""
import argparse
import random
import sys

# Binding strength, as in Python: higher binds tighter.
P_CMP, P_ADD, P_MUL, P_ATOM = 1, 2, 3, 4


class Kernel:
    """Emits one @T.prim_func; `out` collects its lines (without newlines)."""

    def __init__(self, rng, index):
        self.rng = rng
        self.name = "kernel_%05d" % index
        self.out = []
        self.names = 0
        self.ind = 2  # inside class + def: 8 spaces
        self.loop_vars = []  # int32 loop variables in scope
        self.fscalars = []  # float32 scalar-sugar names in scope
        self.locals = []  # (name, extent) of alloc_local buffers

    # -- helpers ---------------------------------------------------------
    def line(self, text):
        self.out.append("    " * self.ind + text)

    def fresh(self, prefix):
        self.names += 1
        return "%s_%d" % (prefix, self.names)

    def flit(self):
        r = self.rng
        v = r.choice([0.5, 1.0, 2.0, 0.25, 3.0, 1.5, 0.125, 4.0, 10.0, 0.75])
        return P_ATOM, "T.float32(%r)" % v

    # Integer index expressions (int32), returned as (precedence, text).
    def iatom(self):
        r = self.rng
        cands = ["tx", "bx"] + self.loop_vars
        return P_ATOM, r.choice(cands)

    def iexpr(self, depth=0):
        r = self.rng
        k = r.randrange(6 if depth < 2 else 2)
        if k == 0:
            return self.iatom()
        if k == 1:
            return P_ATOM, str(r.choice([1, 2, 4, 8, 16, 32, 64, 127]))
        if k == 2:
            a = self.iexpr(depth + 1)
            return P_ADD, "%s + %s" % (self.wrap(a, P_ADD), self.wrap(self.iexpr(depth + 1), P_MUL))
        if k == 3:
            a = self.iatom()
            return P_MUL, "%s * %d" % (a[1], r.choice([2, 4, 8, 16, 32, 128]))
        if k == 4:
            a = self.iexpr(depth + 1)
            return P_MUL, "%s %s %d" % (self.wrap(a, P_MUL), r.choice(["//", "%"]), r.choice([2, 4, 8, 32]))
        a = self.iexpr(depth + 1)
        return P_ADD, "%s - %s" % (self.wrap(a, P_ADD), self.wrap(self.iexpr(depth + 1), P_MUL))

    @staticmethod
    def wrap(e, need):
        prec, text = e
        return text if prec >= need else "(%s)" % text

    def index1(self):
        # An index into a 1-D global buffer of 1024 elements.
        r = self.rng
        k = r.randrange(4)
        if k == 0:
            return "bx * 128 + tx"
        if k == 1:
            return "tx"
        if k == 2 and self.loop_vars:
            return "%s * 64 + tx %% 64" % r.choice(self.loop_vars)
        if k == 3 and r.random() < 0.3:
            return "E[tx] % 1024"
        return self.wrap(self.iexpr(1), P_ADD)

    # Float expressions (float32).
    def fatom(self):
        r = self.rng
        k = r.randrange(7)
        if k == 0 or (k == 5 and not self.fscalars):
            return P_ATOM, "A[%s]" % self.index1()
        if k == 1:
            return P_ATOM, "C[%s]" % (r.choice(self.loop_vars) if self.loop_vars else "tx % 16")
        if k == 2:
            return P_ATOM, "%s[tx]" % self.shared
        if k == 3:
            return self.flit()
        if k == 4 and self.locals:
            nm, ext = r.choice(self.locals)
            return P_ATOM, "%s[%d]" % (nm, r.randrange(ext))
        if k == 5:
            return P_ATOM, r.choice(self.fscalars)
        return P_ATOM, "D[tx %% 64, %s]" % (r.choice(self.loop_vars) if self.loop_vars else "bx")

    def fexpr(self, depth=0):
        r = self.rng
        k = r.randrange(8 if depth < 2 else 2)
        if k in (0, 1):
            return self.fatom()
        if k == 2:
            return P_ADD, "%s + %s" % (self.wrap(self.fexpr(depth + 1), P_ADD),
                                       self.wrap(self.fexpr(depth + 1), P_MUL))
        if k == 3:
            return P_MUL, "%s * %s" % (self.wrap(self.fexpr(depth + 1), P_MUL),
                                       self.wrap(self.fexpr(depth + 1), P_ATOM))
        if k == 4:
            return P_ADD, "%s - %s" % (self.wrap(self.fexpr(depth + 1), P_ADD),
                                       self.wrap(self.fexpr(depth + 1), P_MUL))
        if k == 5:
            fn = r.choice(["T.max", "T.min"])
            return P_ATOM, "%s(%s, %s)" % (fn, self.fexpr(depth + 1)[1], self.fexpr(depth + 1)[1])
        if k == 6:
            fn = r.choice(["T.exp", "T.sqrt"])
            return P_ATOM, "%s(%s)" % (fn, self.fexpr(depth + 1)[1])
        return P_ATOM, "T.if_then_else(%s, %s, %s)" % (self.cond(), self.fexpr(depth + 1)[1],
                                                       self.fexpr(depth + 1)[1])

    def cond(self):
        r = self.rng
        op = r.choice(["<", ">=", "==", "!="]) if r.random() < 0.3 else r.choice(["<", ">="])
        lhs = r.choice(["tx", "bx"] + self.loop_vars)
        if lhs == "bx":
            rhs = r.choice([1, 2, 4])
        elif lhs == "tx":
            rhs = r.choice([16, 32, 64, 96])
        else:
            rhs = r.choice([1, 2, 4, 8])
        return "%s %s %d" % (lhs, op, rhs)

    # -- statement blocks ------------------------------------------------
    def store(self):
        r = self.rng
        k = r.randrange(4)
        if k == 0:
            self.line("B[%s] = %s" % (self.index1(), self.fexpr()[1]))
        elif k == 1 and self.locals:
            nm, ext = r.choice(self.locals)
            self.line("%s[%d] = %s" % (nm, r.randrange(ext), self.fexpr()[1]))
        elif k == 2 and self.fscalars:
            s = r.choice(self.fscalars)
            self.line("%s = %s + %s" % (s, s, self.wrap(self.fexpr(1), P_MUL)))
        else:
            self.line("%s[tx] = %s" % (self.shared, self.fexpr()[1]))

    def blk_load_shared(self):
        self.line("%s[tx] = A[bx * 128 + tx]" % self.shared)
        self.line("T.cuda.cta_sync()")

    def blk_scalar(self):
        s = self.fresh("acc")
        self.line("%s: T.float32 = %s" % (s, self.flit()[1]))
        self.fscalars.append(s)

    def blk_bind(self):
        v = self.fresh("idx")
        self.line("%s = %s" % (v, self.wrap(self.iexpr(), P_CMP)))
        self.loop_vars.append(v)  # usable as an int32 operand from now on
        self.line("B[%s %% 1024] = %s" % (self.wrap((P_ATOM, v), P_MUL), self.fexpr()[1]))

    def blk_loop(self, depth):
        r = self.rng
        v = self.fresh("i")
        k = r.randrange(3)
        if k == 0:
            self.line("for %s in range(%d):" % (v, r.choice([4, 8, 16, 32])))
        elif k == 1:
            self.line("for %s in T.unroll(%d):" % (v, r.choice([2, 4, 8])))
        else:
            self.line("for %s in range(%d, %d):" % (v, r.choice([1, 2]), r.choice([8, 16])))
        self.ind += 1
        self.loop_vars.append(v)
        if k == 0:
            self.store()  # never a perfect nest: the printer would fold it into T.grid
        self.body(depth + 1, r.randint(1, 4))
        self.loop_vars.remove(v)
        self.ind -= 1

    def blk_grid(self, depth):
        r = self.rng
        i, j = self.fresh("i"), self.fresh("j")
        self.line("for %s, %s in T.grid(%d, %d):" % (i, j, r.choice([2, 4, 8]), r.choice([4, 8, 16])))
        self.ind += 1
        self.loop_vars += [i, j]
        self.line("D[%s, %s] = %s" % (i, j, self.fexpr()[1]))
        self.body(depth + 1, r.randint(0, 2))
        self.loop_vars.remove(i)
        self.loop_vars.remove(j)
        self.ind -= 1

    def blk_if(self, depth):
        r = self.rng
        self.line("if %s:" % self.cond())
        self.ind += 1
        self.body(depth + 1, r.randint(1, 3))
        self.ind -= 1
        if r.random() < 0.6:
            self.line("else:")
            self.ind += 1
            self.body(depth + 1, r.randint(1, 3))
            self.ind -= 1

    def blk_shuffle(self):
        if not self.fscalars:
            self.blk_scalar()
        s = self.rng.choice(self.fscalars)
        m = self.fresh("mask")
        self.line("%s = T.tvm_warp_activemask()" % m)
        for off in (16, 8, 4, 2, 1):
            self.line("%s = %s + T.tvm_warp_shuffle_xor(%s, %s, %d, 32, 32)" % (s, s, m, s, off))

    def body(self, depth, n):
        # A nested block: names it binds go out of scope at its end.
        saved = (len(self.loop_vars), len(self.fscalars))
        self._body(depth, n)
        del self.loop_vars[saved[0]:]
        del self.fscalars[saved[1]:]

    def _body(self, depth, n):
        r = self.rng
        for _ in range(n):
            k = r.randrange(10)
            if depth >= 3 or k < 4:
                self.store()
            elif k == 4:
                self.blk_loop(depth)
            elif k == 5:
                self.blk_if(depth)
            elif k == 6:
                self.blk_grid(depth)
            elif k == 7:
                self.blk_bind()
            elif k == 8:
                self.blk_scalar()
            else:
                self.store()

    def top_block(self):
        r = self.rng
        k = r.randrange(9)
        if k == 0:
            self.blk_load_shared()
        elif k == 1:
            self.blk_shuffle()
        elif k == 2:
            self.blk_scalar()
        elif k == 3:
            self.blk_bind()
        elif k == 4:
            self.blk_if(0)
        elif k == 5:
            self.blk_grid(0)
        else:
            self.blk_loop(0)

    def emit(self, target):
        r = self.rng
        self.out.append("    @T.prim_func")
        self.out.append(
            "    def %s(A: T.Buffer((1024,)), B: T.Buffer((1024,)), C: T.Buffer((16,)), "
            "D: T.Buffer((64, 64)), E: T.Buffer((128,), \"int32\")):" % self.name)
        self.line("T.device_entry()")
        self.line("bx = T.cta_id([8])")
        self.line("tx = T.thread_id([128])")
        self.shared = self.fresh("A_shared")
        self.line("%s = T.alloc_shared((128,))" % self.shared)
        for _ in range(r.randint(1, 2)):
            nm, ext = self.fresh("B_local"), r.choice([2, 4, 8])
            self.line("%s = T.alloc_local((%d,))" % (nm, ext))
            self.locals.append((nm, ext))
        self.blk_scalar()
        while len(self.out) < target:
            self.top_block()
        self.line("B[bx * 128 + tx] = %s" % self.fscalars[0])
        return self.out


def generate(lines, seed):
    rng = random.Random(seed)
    out = [
        "# from tvm.script import ir as I",
        "# from tvm.script import tirx as T",
        "",
        "@I.ir_module",
        "class Module:",
    ]
    i = 0
    while len(out) < lines:
        if i:
            out.append("")
        remaining = lines - len(out)
        target = rng.randint(50, 200)
        if remaining < 250:
            target = max(min(target, remaining), 10)
        out.extend(Kernel(rng, i).emit(target))
        i += 1
    return "\n".join(out) + "\n", i


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=100000, help="approximate line count (default 100000)")
    ap.add_argument("--seed", type=int, default=20240601, help="random seed (default 20240601)")
    ap.add_argument("-o", "--output", default="-", help="output file ('-' is standard output)")
    a = ap.parse_args()
    text, nfuncs = generate(a.lines, a.seed)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    sys.stderr.write("gen_module: %d lines, %d bytes, %d functions\n"
                     % (text.count("\n"), len(text.encode()), nfuncs))


if __name__ == "__main__":
    main()
