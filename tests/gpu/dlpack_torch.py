#!/usr/bin/env python3
"""DLPack exchange with PyTorch through libtirx (ctypes): a kernel compiled by
tirx_compile runs on torch CUDA tensors passed as DLTensor* (taken from
torch's DLPack capsule), on torch's current stream. Exits 77 (skip) when torch
or a GPU is missing. Usage: dlpack_torch.py path/to/libtirx.so"""
import ctypes as C
import sys

try:
    import torch
except ImportError:
    print("skip: torch is not installed"); sys.exit(77)
if not torch.cuda.is_available():
    print("skip: no CUDA GPU for torch"); sys.exit(77)

lib = C.CDLL(sys.argv[1])


class Span(C.Structure):
    _fields_ = [("file", C.c_char_p), ("line", C.c_uint32), ("col", C.c_uint32),
                ("end_line", C.c_uint32), ("end_col", C.c_uint32)]


class Error(C.Structure):
    _fields_ = [("code", C.c_int), ("message", C.c_char * 1024), ("span", Span)]


# tirx_compile_options_init fills the whole struct of tirx.h: this mirror
# must have every field (a short one was overwritten past its end).
class Options(C.Structure):
    _fields_ = [("size", C.c_size_t), ("arch", C.c_char_p), ("opt_level", C.c_int),
                ("cuda_path", C.c_char_p), ("disabled_passes", C.c_void_p),
                ("num_disabled_passes", C.c_size_t), ("disk_cache", C.c_int),
                ("cache_dir", C.c_char_p), ("cache", C.c_void_p), ("host_only", C.c_int),
                ("allocator", C.c_void_p)]


class ArgV(C.Union):
    _fields_ = [("tensor", C.c_void_p), ("i", C.c_int64), ("f", C.c_double), ("handle", C.c_void_p)]


class Arg(C.Structure):
    _fields_ = [("kind", C.c_int), ("v", ArgV)]


# PyCapsule -> DLManagedTensor* (legacy capsule "dltensor"); DLTensor is its first field.
C.pythonapi.PyCapsule_GetPointer.restype = C.c_void_p
C.pythonapi.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]


def dltensor(t):
    cap = torch.utils.dlpack.to_dlpack(t)
    return cap, C.pythonapi.PyCapsule_GetPointer(cap, b"dltensor")


def check(st, err):
    if st != 0:
        raise SystemExit("libtirx error %d: %s" % (st, err.message.decode()))


SRC = b'''n = T.int32()

# from tvm.script import tirx as T

@T.prim_func
def scale_dyn(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    for i in range(n):
        B[i] = A[i] * T.float32(2.0)
'''

err = Error()
rt = C.c_void_p()
check(lib.tirx_runtime_open(0, C.byref(rt), C.byref(err)), err)
lib.tirx_runtime_arch.restype = C.c_char_p
opts = Options()
lib.tirx_compile_options_init(C.byref(opts))
opts.arch = lib.tirx_runtime_arch(rt)
exe, lm, fn = C.c_void_p(), C.c_void_p(), C.c_void_p()
check(lib.tirx_compile(b"scale_dyn.tirx", SRC, C.c_size_t(len(SRC)), C.byref(opts), C.byref(exe),
                       C.byref(err)), err)
check(lib.tirx_runtime_load(rt, exe, C.byref(lm), C.byref(err)), err)
check(lib.tirx_loaded_function(lm, b"scale_dyn", C.byref(fn), C.byref(err)), err)

a = torch.randn(1000, device="cuda")
b = torch.zeros(1000, device="cuda")
ca, pa = dltensor(a)
cb, pb = dltensor(b)
args = (Arg * 2)(Arg(3, ArgV(tensor=pa)), Arg(3, ArgV(tensor=pb)))
stream = C.c_void_p(torch.cuda.current_stream().cuda_stream)
check(lib.tirx_function_call(fn, args, C.c_size_t(2), stream, C.byref(err)), err)
torch.cuda.synchronize()
assert torch.equal(b, a * 2), "wrong result"

# A mismatch is reported, not launched.
h = torch.zeros(1000, device="cuda", dtype=torch.float16)
ch, ph = dltensor(h)
args = (Arg * 2)(Arg(3, ArgV(tensor=ph)), Arg(3, ArgV(tensor=pb)))
st = lib.tirx_function_call(fn, args, C.c_size_t(2), stream, C.byref(err))
assert st != 0 and b"expected dtype float32, got float16" in err.message, err.message
lib.tirx_loaded_free(lm)
lib.tirx_executable_free(exe)
lib.tirx_runtime_close(rt)
print("dlpack_torch: ok")
