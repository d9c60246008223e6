"""The real-GPU check's Python half: spin_and_sync(ms) through ctypes with the GIL held (PyDLL)
and released (CDLL), ROUNDS times each, after START_DELAY_MS (seam probes a new process's
libraries a moment after they are loaded). Usage: python3 gil.py LIBGPUSPIN ROUNDS MS START_DELAY_MS"""
import ctypes
import sys
import time

lib, rounds, ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held, released = ctypes.PyDLL(lib), ctypes.CDLL(lib)
time.sleep(int(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 1.0)
failed = 0
for _ in range(rounds):
    failed |= held.spin_and_sync(ms)
    failed |= released.spin_and_sync(ms)
print(f"gil.py: {rounds} rounds of {ms} ms, GIL held and released: {'FAILED' if failed else 'ok'}", flush=True)
sys.exit(failed)
