"""The real-GPU check's Python half: spin_and_sync(ms) through ctypes with the GIL held (PyDLL)
and released (CDLL), ROUNDS times each. Usage: python3 gil.py LIBGPUSPIN ROUNDS MS"""
import ctypes
import sys

lib, rounds, ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held, released = ctypes.PyDLL(lib), ctypes.CDLL(lib)
failed = 0
for _ in range(rounds):
    failed |= held.spin_and_sync(ms)
    failed |= released.spin_and_sync(ms)
print(f"gil.py: {rounds} rounds of {ms} ms, GIL held and released: {'FAILED' if failed else 'ok'}", flush=True)
sys.exit(failed)
