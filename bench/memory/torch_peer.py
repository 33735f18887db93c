"""torch_peer.py - PyTorch's ops on the shapes of bench_memory (8192 x 8192
float16), timed as bench_memory times its kernels: batches of back-to-back
calls between two synchronizations, the median batch divided by the calls.
Bandwidth counts each byte read or written once. Prints a table and RESULT
lines for bench/run_memory.sh. Run by hand: python3 torch_peer.py [-n N] [-r R]."""
import argparse
import time

import torch


def timed(fn, iters, batches):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(batches + 1):  # the first batch warms up
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / iters * 1e6)
    times = sorted(times[1:])
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("-r", type=int, default=7)
    a = ap.parse_args()
    R = C = 8192
    g = torch.Generator(device="cuda").manual_seed(0)
    x = (torch.rand(R, C, device="cuda", generator=g) * 8 - 4).half()
    y = (torch.rand(R, C, device="cuda", generator=g) * 8 - 4).half()
    z = torch.empty_like(x)
    b = torch.empty(R, C, device="cuda", dtype=torch.bfloat16)
    w = (1 + (torch.rand(C, device="cuda", generator=g) - 0.5) / 2).half()
    n = R * C * 2
    cases = [
        ("copy", lambda: z.copy_(x), 2 * n),
        ("cast", lambda: b.copy_(x), 2 * n),
        ("axpy", lambda: torch.add(y, x, alpha=1.5, out=z), 3 * n),
        ("rmsnorm", lambda: torch.nn.functional.rms_norm(x, (C,), w, eps=1e-6), 2 * n + C * 2),
        ("softmax", lambda: torch.softmax(x, dim=-1), 2 * n),
    ]
    print(f"# torch {torch.__version__} on {torch.cuda.get_device_name()}; "
          f"median of {a.r} batches of {a.n} calls")
    for name, fn, nbytes in cases:
        us = timed(fn, a.n, a.r)
        print(f"torch_{name:<10} {us:10.2f} us {nbytes / us / 1e3:9.1f} GB/s")
        print(f"RESULT memory torch_{name} us {us:.3f}\nRESULT memory torch_{name} gbs {nbytes / us / 1e3:.1f}")


if __name__ == "__main__":
    main()
