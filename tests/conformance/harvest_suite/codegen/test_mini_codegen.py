# Stand-in TVM tests for tests/conformance/harvest_test.py: each way a test hands a program to TVM.
import pytest
import tvm
import tvm.testing
from tvm.script import tirx as T


def make(n):
    @T.prim_func
    def scale(A: T.Buffer((n,), "float32")):
        T.attr({"tirx.device_entry": T.bool(True)})
        tx = T.thread_id([n])
        A[tx] = A[tx] * T.float32(2.0)

    return scale


@pytest.mark.parametrize("n", [32, 64, 32])
def test_compile_for_hopper(n):
    mod = tvm.compile(make(n), target=tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}))
    mod["main"]  # using the result ends the test under the harvest


def test_compile_default_target():
    lib = tvm.compile(make(16), target="cuda")
    lib.export_library("x.so")


def test_compile_expected_to_fail():
    with pytest.raises(Exception):
        tvm.compile(make(8), target=tvm.target.Target({"kind": "cuda", "arch": "sm_100a"}))


def test_llvm_build():
    @T.prim_func
    def add(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        for i in range(4):
            B[i] = A[i] + 1

    tvm.compile(add, target="llvm")
