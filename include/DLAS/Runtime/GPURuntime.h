//===- GPURuntime.h - DLAS's GPU runtime (C ABI) ----------------*- C++ -*-===//
//
// The functions the host code of dlas-gpu-pipeline calls: MLIR's mgpu*
// host ABI (what gpu-to-llvm emits: module load, kernel launch, streams,
// events, device memory) and DLAS's own constant cache, implemented over
// the CUDA driver API or HIP. Both drivers are opened with dlopen when
// first needed, so the runtime builds, links and loads on machines with
// neither; the first call that needs a GPU records a clear error instead.
//
// The mgpu* functions have no error channel: an error is kept (the first
// one), every later call does nothing, and the caller asks for it with
// dlasGpuLastError() after a call into generated code.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_RUNTIME_GPURUNTIME_H
#define DLAS_RUNTIME_GPURUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Picks the driver: "cuda" (libcuda.so.1) or "rocm" (libamdhip64.so);
/// without a call, the first that loads. Returns 0, or -1 (and records an
/// error) for another name or after the driver was opened.
int dlasGpuSetPlatform(const char *api);

/// Opens the driver and the first device now. Returns 0, or -1 with the
/// reason in dlasGpuLastError() (no driver library, no device, ...).
int dlasGpuInit(void);

/// The first error since the last dlasGpuClearError(), or NULL.
const char *dlasGpuLastError(void);
void dlasGpuClearError(void);

/// Device buffers that generated code frees are kept for its next
/// allocations of about the same size (freeing waits for the whole device);
/// this gives the idle ones back to the driver. DLAS_GPU_CACHING=0 in the
/// environment turns the cache off.
void dlasGpuReleaseCache(void);

/// The first device's name and architecture ("sm_90", "gfx942"), after a
/// successful dlasGpuInit(); empty strings otherwise.
const char *dlasGpuDeviceName(void);
const char *dlasGpuDeviceArch(void);

/// Per-kernel profile: with profiling on, every launch is bracketed by
/// timing events on its stream; dlasGpuProfileFlush (after the code
/// returned) reads them into per-kernel samples, labelled "#<module load
/// order> <function> grid XxYxZ block XxYxZ" in first-launch order.
void dlasGpuProfile(int enable);
int dlasGpuProfileFlush(void);
void dlasGpuProfileReset(void);
int dlasGpuProfileKernels(void);
const char *dlasGpuProfileLabel(int kernel);
int dlasGpuProfileSamples(int kernel);
double dlasGpuProfileSample(int kernel, int sample);

/// An unranked memref as the LLVM lowering passes and returns it.
typedef struct {
  int64_t rank;
  void *descriptor;
} DlasUnrankedMemRef;

/// The device copy of the constant `bytes` bytes behind a ranked memref
/// descriptor (host memory, contiguous), made on the first call for that
/// host address and kept for the process's lifetime. The returned
/// descriptor is a new malloc'ed copy that the caller frees (MLIR's
/// convention for returned unranked memrefs). The generated code calls it
/// under one name per element type (dlas_gpu_constant_f32, ...).
DlasUnrankedMemRef dlasGpuConstant(int64_t rank, void *descriptor,
                                   int64_t bytes);

/// MLIR's host ABI for gpu.launch_func, gpu.alloc, gpu.memcpy, ... (the
/// signatures of mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp).
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif // DLAS_RUNTIME_GPURUNTIME_H
