# The README's example alert: three Python functions deep into a CUDA runtime's
# cudaStreamSynchronize through ctypes.PyDLL (the GIL held), as rules/gil.seam reports it.
#   seam run rules/gil.seam -c "python3.11 demo/frames.py build/fixtures/libcudart.so.12"
import ctypes, sys, time
lib = ctypes.PyDLL(sys.argv[1])
lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
time.sleep(2)  # seam attaches to the library just loaded
def outer():
    return middle()
def middle():
    return inner()
def inner():
    lib.cudaStreamSynchronize(ctypes.c_void_p(20000))  # 20 ms in the tests' fixture

outer()
