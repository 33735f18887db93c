"""pytest plugin: record every TIRx program a TVM test suite builds, as TVM prints it.

Loaded by harvest.py (`pytest -p tirx_harvest_plugin`, this folder on
PYTHONPATH). While the tests run it watches three places where a test hands
a finished PrimFunc or IRModule to TVM:

  compile           tvm.compile / tvm.build / tvm.tirx.build (and their
                    tvm.driver aliases): the program and the target's arch
  structural_equal  both sides of tvm.ir.assert_structural_equal
  script            any .script() call the test makes itself

Each program is printed with TVM's own `.script()` and stored once per
distinct text under $TIRX_HARVEST_DIR/texts/<sha>.tirx; one JSON line per
sighting goes to $TIRX_HARVEST_DIR/records/<pid>.jsonl (test id, origin,
target kind and arch, whether it happened inside `pytest.raises`).

By default a compile is not run (no GPU is needed): the call returns a stand-in
whose first use skips the test, so the test stops right after handing the
program over. TIRX_HARVEST_COMPILE=run calls the real compile instead (for a
machine that can). GPU availability checks in tvm.testing are made to answer
yes so GPU-only tests get as far as their compile call; TIRX_HARVEST_REAL_GPU=1
keeps the real answers. TIRX_HARVEST_ALIASES=old=new,... makes a module
importable under an older name (tests newer or older than the installed TVM).

This plugin only records: it never edits the tests or TVM's files.
"""

import contextlib
import hashlib
import json
import os
import threading

import pytest

OUT = os.path.abspath(os.environ.get("TIRX_HARVEST_DIR", "tirx-harvest"))
RUN_COMPILE = os.environ.get("TIRX_HARVEST_COMPILE", "skip") == "run"
REAL_GPU = os.environ.get("TIRX_HARVEST_REAL_GPU", "") == "1"
# A CUDA target built without an arch on a machine without a GPU gets TVM's
# fallback arch: that is not what the test asked for.
FALLBACK_ARCH = "sm_50"

_where = {"nodeid": None, "module": None}
_raises_depth = [0]
_local = threading.local()


@contextlib.contextmanager
def _inside():
    """Marks TVM calls the plugin itself makes (or ones nested in a hooked call)."""
    before = getattr(_local, "inside", False)
    _local.inside = True
    try:
        yield
    finally:
        _local.inside = before


def _nested():
    return getattr(_local, "inside", False)


def _target(target):
    """(kind, arch) of a compile's target, from the argument or the current target scope."""
    import tvm

    try:
        t = target if target is not None else tvm.target.Target.current(allow_none=True)
        if t is None:
            return "", ""
        if not isinstance(t, tvm.target.Target):
            t = tvm.target.Target(t)
        arch = str(t.attrs.get("arch", "") or "")
        return t.kind.name, "" if arch == FALLBACK_ARCH else arch
    except Exception as e:  # a target TVM cannot build: note the kind of failure
        return f"?{type(e).__name__}", ""


def _save(text):
    if not text.endswith("\n"):
        text += "\n"  # the files end in a newline, as print() would write them
    data = text.encode()
    sha = hashlib.sha256(data).hexdigest()[:16]
    path = os.path.join(OUT, "texts", sha + ".tirx")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return sha


def record(obj, origin, target=None):
    import tvm

    if not isinstance(obj, (tvm.tirx.PrimFunc, tvm.ir.IRModule)):
        return
    rec = {
        "test": _where["nodeid"] or f"{_where['module'] or 'unknown'}::<collection>",
        "origin": origin,
        "in_raises": _raises_depth[0] > 0,
    }
    if origin == "compile":
        rec["kind"], rec["arch"] = _target(target)
    with _inside():
        try:
            rec["sha"] = _save(obj.script())
        except Exception as e:  # noqa: BLE001 - any printer failure is data
            rec["print_error"] = f"{type(e).__name__}: {e}"[:300]
    with open(os.path.join(OUT, "records", f"{os.getpid()}.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")


class _NotCompiled:
    """What an intercepted compile returns: using it in any way skips the test."""

    def _stop(self, *args, **kwargs):
        pytest.skip("tirx harvest: compile recorded, not run")

    __call__ = _stop
    __getitem__ = _stop

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._stop()


def _hook_compile(real):
    def compile_hook(mod, *args, **kwargs):
        if _nested():
            return real(mod, *args, **kwargs)
        record(mod, "compile", kwargs.get("target", args[0] if args else None))
        if RUN_COMPILE:
            with _inside():
                return real(mod, *args, **kwargs)
        if _raises_depth[0] > 0:
            # the test expects this compile to raise; without running it the
            # expectation cannot be met, so the test ends here
            pytest.skip("tirx harvest: compile inside pytest.raises recorded, not run")
        return _NotCompiled()

    compile_hook.__wrapped__ = real
    compile_hook.__name__ = getattr(real, "__name__", "compile")
    return compile_hook


def _hook_equal(real):
    def equal_hook(lhs, rhs, *args, **kwargs):
        if not _nested():
            record(lhs, "structural_equal")
            record(rhs, "structural_equal")
        with _inside():
            return real(lhs, rhs, *args, **kwargs)

    equal_hook.__wrapped__ = real
    return equal_hook


def _replace(module_name, attr, make):
    """Wraps module.attr once; the same function reached through several modules shares one wrapper."""
    import importlib

    try:
        mod = importlib.import_module(module_name)
    except ImportError:
        return
    real = getattr(mod, attr, None)
    if not callable(real) or isinstance(real, type(importlib)):
        return
    wrappers = _replace.done
    if id(real) not in wrappers:
        wrappers[id(real)] = (real, make(real))
    setattr(mod, attr, wrappers[id(real)][1])


_replace.done = {}

COMPILE_ENTRIES = [
    ("tvm", "compile"),
    ("tvm", "build"),
    ("tvm.driver", "compile"),
    ("tvm.driver", "build"),
    ("tvm.driver.build_module", "compile"),
    ("tvm.driver.build_module", "build"),
    ("tvm.tirx", "build"),
    ("tvm.tirx.build", "build"),
]
EQUAL_ENTRIES = [("tvm.ir", "assert_structural_equal"), ("tvm.ir.base", "assert_structural_equal")]
GPU_CHECKS = ["has_cuda", "has_gpu", "has_nvptx", "has_cudagraph", "has_nvshmem", "has_cuda_compute",
              "has_cuda_arch", "has_nvcc_version", "has_multi_gpu"]


def _hook_script():
    import tvm.runtime.script_printer as printer

    real = printer.Scriptable.script

    def script_hook(self, *args, **kwargs):
        if not _nested() and not args and not kwargs:
            record(self, "script")
        with _inside():
            return real(self, *args, **kwargs)

    printer.Scriptable.script = script_hook


def _hook_raises():
    real = pytest.raises

    class Counted:
        def __init__(self, cm):
            self.cm = cm

        def __enter__(self):
            _raises_depth[0] += 1
            return self.cm.__enter__()

        def __exit__(self, *exc):
            _raises_depth[0] -= 1
            return self.cm.__exit__(*exc)

    def raises(*args, **kwargs):
        if len(args) >= 2 and callable(args[1]):  # pytest.raises(E, func, *args) form
            _raises_depth[0] += 1
            try:
                return real(*args, **kwargs)
            finally:
                _raises_depth[0] -= 1
        return Counted(real(*args, **kwargs))

    pytest.raises = raises


def _pretend_gpu():
    try:
        from tvm.testing import env
    except ImportError:
        return
    for name in GPU_CHECKS:
        if hasattr(env, name):
            setattr(env, name, lambda *a, **k: True)


def _alias_modules(spec):
    """OLD=NEW,...: lets tests written for another TVM import a module under its old name."""
    import importlib
    import sys

    for pair in filter(None, spec.split(",")):
        old, _, new = pair.partition("=")
        module = importlib.import_module(new)
        sys.modules.setdefault(old, module)
        parent, _, leaf = old.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], leaf, module)


def install():
    import tvm  # noqa: F401 - fail early and clearly when TVM is not importable

    _alias_modules(os.environ.get("TIRX_HARVEST_ALIASES", ""))
    os.makedirs(os.path.join(OUT, "texts"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "records"), exist_ok=True)
    for module_name, attr in COMPILE_ENTRIES:
        _replace(module_name, attr, _hook_compile)
    for module_name, attr in EQUAL_ENTRIES:
        _replace(module_name, attr, _hook_equal)
    _hook_script()
    _hook_raises()
    if not REAL_GPU:
        _pretend_gpu()


install()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    _where["nodeid"] = item.nodeid
    _raises_depth[0] = 0


@pytest.hookimpl(tryfirst=True)
def pytest_collectstart(collector):
    _where["nodeid"] = None
    _where["module"] = getattr(collector, "nodeid", None) or _where["module"]
