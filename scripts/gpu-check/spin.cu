// The real-GPU check's CUDA program (docs/gpu-check.md), built with nvcc against the shared
// libcudart so that seam's uprobes on libcudart.so* see its calls. libgpuspin.so exports
// spin_and_sync(ms): a kernel that spins on the device for `ms` milliseconds, then
// cudaStreamSynchronize; Python calls it through ctypes with the GIL held (PyDLL) and released
// (CDLL). Built as a program (-DSPIN_MAIN) it does the same under a pthread mutex held and not
// held, where there is no Python: the mutex stands in for the GIL (the GIL rules cannot fire
// there; the sync rules can).
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

extern "C" int spin_and_sync(int ms) {
  int rate_khz = 0;
  cudaError_t e = cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0);
  if (e != cudaSuccess) {
    fprintf(stderr, "gpuspin: no device: %s\n", cudaGetErrorString(e));
    // Call the synchronising API anyway: the probes fire on libcudart without a driver too.
    cudaStreamSynchronize(0);
    return 1;
  }
  void* buffer = nullptr;
  cudaMalloc(&buffer, 1 << 20);
  spin<<<1, 1>>>(static_cast<long long>(rate_khz) * ms);
  e = cudaStreamSynchronize(0);
  cudaFree(buffer);
  if (e != cudaSuccess) {
    fprintf(stderr, "gpuspin: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

#ifdef SPIN_MAIN
static pthread_mutex_t fake_gil = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 5, ms = argc > 2 ? atoi(argv[2]) : 20;
  // A new process's libraries are probed a moment after its exec: wait that long before the
  // first call, as a server's start-up would (without a driver the calls take no time at all).
  int start_delay_ms = argc > 3 ? atoi(argv[3]) : 1000;
  usleep(static_cast<useconds_t>(start_delay_ms) * 1000);
  int failed = 0;
  for (int i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&fake_gil);  // "GIL held"
    failed |= spin_and_sync(ms);
    pthread_mutex_unlock(&fake_gil);
    failed |= spin_and_sync(ms);  // "GIL released"
  }
  printf("gpuspin: %d rounds of %d ms, held and released: %s\n", rounds, ms, failed ? "FAILED" : "ok");
  return failed;
}
#endif
