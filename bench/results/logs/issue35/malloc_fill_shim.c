// Diagnostic only (LD_PRELOAD): every cudaMalloc'd block is filled with the byte SHIM_FILL
// (default 0) before it is returned, so a reader of uninitialised device memory sees known
// contents. Used to test whether the GAMG set-up hang depends on what memory held before.
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef cudaError_t (*malloc_fn)(void**, size_t);

cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  static malloc_fn real = NULL;
  if (real == NULL) {
    real = (malloc_fn)dlsym(RTLD_NEXT, "cudaMalloc");
    fprintf(stderr, "malloc_fill_shim: cudaMalloc blocks filled with byte %s\n",
            getenv("SHIM_FILL") ? getenv("SHIM_FILL") : "0");
  }
  cudaError_t status = real(pointer, bytes);
  if (status == cudaSuccess && bytes > 0) {
    const char* fill = getenv("SHIM_FILL");
    cudaMemset(*pointer, fill ? atoi(fill) : 0, bytes);
    cudaDeviceSynchronize();
  }
  return status;
}
