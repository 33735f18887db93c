# Stand-in TVM tests for tests/conformance/harvest_test.py: programs seen by assert_structural_equal and .script().
import tvm
import tvm.testing
from tvm.script import tirx as T


def test_structural_equal():
    @T.prim_func
    def before(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = T.float32(1.0)

    @T.prim_func
    def expected(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = T.float32(1.0)

    tvm.ir.assert_structural_equal(before.with_attr("global_symbol", "f"), expected.with_attr("global_symbol", "f"))


def test_script_printed():
    @T.prim_func
    def g(A: T.Buffer((2, 2), "int8")):
        A[0, 0] = T.int8(3)

    assert "T.int8(3)" in g.script()


def test_not_tvm():
    assert 1 + 1 == 2
