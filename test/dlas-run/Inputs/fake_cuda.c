/* A stand-in for libcuda.so.1 for tests on machines without a GPU: the
 * entry points DLAS's GPU runtime binds, with device memory in host memory
 * (calloc, memcpy) and kernel launches that only print their shape, so that
 * the host side of dlas-gpu-pipeline's code (module loads in constructors,
 * allocations, copies at the entry's edges, the constant cache, launches,
 * frees) runs end to end. Kernels do not execute: results stay zero.
 * FAKE_CUDA_NO_DEVICE=1 makes cuInit fail as a machine without a device
 * does; FAKE_CUDA_MAX_LIVE=N makes an allocation fail as out of memory
 * while N allocations are live. Every call is counted; the counts print at
 * exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static int loads, launches, allocs, frees, copies;

static void report(void) {
  fprintf(stderr,
          "fake-cuda: %d module loads, %d launches, %d allocations, %d frees, "
          "%d copies\n",
          loads, launches, allocs, frees, copies);
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  if (getenv("FAKE_CUDA_NO_DEVICE"))
    return 100; /* CUDA_ERROR_NO_DEVICE */
  atexit(report);
  return 0;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 100 ? "no CUDA-capable device is detected" : "fake error";
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = (void *)0x1;
  return 0;
}
CUresult cuCtxSetCurrent(void *context) { (void)context; return 0; }
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  *value = attribute == 75 ? 9 : 0; /* compute capability 9.0 */
  return 0;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  (void)device;
  snprintf(name, length, "Fake GPU");
  return 0;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  *module = (void *)image;
  ++loads;
  return 0;
}
CUresult cuModuleUnload(void *module) { (void)module; return 0; }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  *function = (void *)name;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)f; (void)shared; (void)stream; (void)params; (void)extra;
  ++launches;
  fprintf(stderr, "fake-cuda: launch grid %u,%u,%u block %u,%u,%u\n", gx, gy,
          gz, bx, by, bz);
  return 0;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = malloc(1);
  return 0;
}
CUresult cuStreamDestroy_v2(void *stream) { free(stream); return 0; }
CUresult cuStreamSynchronize(void *stream) { (void)stream; return 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) {
  (void)s; (void)e; (void)f;
  return 0;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = malloc(1);
  return 0;
}
CUresult cuEventDestroy_v2(void *event) { free(event); return 0; }
CUresult cuEventRecord(void *e, void *s) { (void)e; (void)s; return 0; }
CUresult cuEventSynchronize(void *e) { (void)e; return 0; }
CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  (void)start; (void)end;
  *ms = 0.001f; /* every kernel takes a microsecond */
  return 0;
}
CUresult cuMemAlloc_v2(void **pointer, size_t bytes) {
  const char *max = getenv("FAKE_CUDA_MAX_LIVE");
  if (max && allocs - frees >= atoi(max))
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  *pointer = calloc(1, bytes);
  ++allocs;
  return *pointer ? 0 : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}
CUresult cuMemAllocManaged(void **pointer, size_t bytes, unsigned flags) {
  (void)flags;
  return cuMemAlloc_v2(pointer, bytes);
}
CUresult cuMemFree_v2(void *pointer) {
  free(pointer);
  ++frees;
  return 0;
}
CUresult cuMemcpyAsync(void *dst, const void *src, size_t bytes, void *s) {
  (void)s;
  memcpy(dst, src, bytes);
  ++copies;
  return 0;
}
CUresult cuMemsetD32Async(void *dst, unsigned v, size_t n, void *s) {
  (void)s;
  for (size_t i = 0; i < n; ++i)
    ((unsigned *)dst)[i] = v;
  return 0;
}
CUresult cuMemsetD16Async(void *dst, unsigned short v, size_t n, void *s) {
  (void)s;
  for (size_t i = 0; i < n; ++i)
    ((unsigned short *)dst)[i] = v;
  return 0;
}
