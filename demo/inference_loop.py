#!/usr/bin/env python3
"""An inference-like loop for seam's demo and tests.

It calls a CUDA runtime library through ctypes the way a serving loop does: kernel launches,
a stream synchronize per step, and now and then a cudaMalloc. Through ctypes.PyDLL a call keeps
the GIL held; through ctypes.CDLL the GIL is released around it. With the fixture library
(tests/fixtures/fake_cudart.c) the `stream` argument of cudaStreamSynchronize is how many
microseconds it blocks.

  inference_loop.py LIB [--steps N] [--sync-us US] [--gil held|released|both] [--malloc-every K]
                        [--wait-for-go]   (print "ready" and wait for a line on stdin first)
"""
import argparse
import ctypes
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--sync-us", type=int, default=20000)
    ap.add_argument("--gil", choices=["held", "released", "both"], default="both")
    ap.add_argument("--malloc-every", type=int, default=0)
    ap.add_argument("--launches", type=int, default=4)
    ap.add_argument("--pause-ms", type=int, default=0)
    ap.add_argument("--wait-for-go", action="store_true")
    args = ap.parse_args()

    held = ctypes.PyDLL(args.lib)      # the GIL stays held during the call
    released = ctypes.CDLL(args.lib)   # the GIL is dropped around the call
    for lib in (held, released):
        lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
        lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        lib.cudaLaunchKernel.argtypes = [ctypes.c_void_p, ctypes.c_ulonglong, ctypes.c_ulonglong,
                                         ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]

    if args.wait_for_go:
        print("ready", flush=True)
        sys.stdin.readline()

    ptr = ctypes.c_void_p()
    for step in range(args.steps):
        lib = held if args.gil == "held" or (args.gil == "both" and step % 2 == 0) else released
        for _ in range(args.launches):
            lib.cudaLaunchKernel(None, 1, 1, None, 0, None)
        if args.malloc_every and step % args.malloc_every == 0:
            lib.cudaMalloc(ctypes.byref(ptr), 64 << 20)
        lib.cudaStreamSynchronize(ctypes.c_void_p(args.sync_us))
        if args.pause_ms:
            time.sleep(args.pause_ms / 1000)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
