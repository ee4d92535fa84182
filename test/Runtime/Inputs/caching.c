/* Drives the GPU runtime's caching allocator through MLIR's mgpu* ABI as
 * generated host code does, against the fake driver, and prints which
 * allocations reuse a freed block (gpu-caching.test). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared);
void mgpuMemFree(void *pointer, void *stream);
int dlasGpuInit(void);
const char *dlasGpuLastError(void);
void dlasGpuReleaseCache(void);

static const char *yes(bool value) { return value ? "yes" : "no"; }

int main(void) {
  /* Unbuffered: the fake driver reports its counts at exit, on stderr. */
  setvbuf(stdout, NULL, _IONBF, 0);
  if (dlasGpuInit() != 0) {
    printf("init failed: %s\n", dlasGpuLastError());
    return 1;
  }
  void *a = mgpuStreamCreate(), *b = mgpuStreamCreate();
  void *p = mgpuMemAlloc(1000, a, false);
  mgpuMemFree(p, a);
  void *q = mgpuMemAlloc(1000, a, false);
  printf("same stream, at once: %s\n", yes(q == p));
  mgpuMemFree(q, a);
  void *r = mgpuMemAlloc(1000, b, false);
  printf("other stream, first stream running: %s\n", yes(r == p));
  mgpuStreamSynchronize(a);
  void *s = mgpuMemAlloc(1000, b, false);
  printf("other stream, first stream synchronized: %s\n", yes(s == p));
  void *big = mgpuMemAlloc(1300, b, false);
  mgpuMemFree(big, b);
  mgpuStreamDestroy(b);
  void *t = mgpuMemAlloc(1000, a, false);
  printf("1300-byte block for 1000 bytes: %s\n", yes(t == big));
  void *u = mgpuMemAlloc(1100, a, false);
  printf("1300-byte block for 1100 bytes: %s\n", yes(u == big));
  /* Out of memory (FAKE_CUDA_MAX_LIVE): the idle blocks go back to the
   * driver and the allocation is tried again. */
  mgpuMemFree(r, a);
  mgpuMemFree(s, a);
  mgpuMemFree(t, a);
  mgpuStreamSynchronize(a);
  void *huge = mgpuMemAlloc(1 << 20, a, false);
  printf("after running out: %s\n", huge ? "allocated" : "failed");
  mgpuMemFree(huge, a);
  mgpuMemFree(u, a);
  mgpuStreamDestroy(a);
  dlasGpuReleaseCache();
  printf("error: %s\n", dlasGpuLastError() ? dlasGpuLastError() : "none");
  return 0;
}
