//===- GPURuntime.cpp - DLAS's GPU runtime over CUDA and HIP --------------===//
//
// MLIR's mgpu* host ABI and DLAS's constant cache over the CUDA driver API
// or HIP, both opened with dlopen (no toolkit headers or libraries at build
// time). The handful of driver types used here are opaque handles and
// ints; their layouts are the drivers' documented C ABI.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Runtime/GPURuntime.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {
using Result = int;

/// One driver's entry points. CUDA and HIP take the same arguments for
/// everything used here except where noted; device pointers are 64-bit on
/// both, so void * stands for CUdeviceptr.
struct Driver {
  bool cuda = true;
  void *library = nullptr;
  Result (*init)(unsigned) = nullptr;
  Result (*moduleLoadData)(void **, const void *) = nullptr;
  Result (*moduleUnload)(void *) = nullptr;
  Result (*moduleGetFunction)(void **, void *, const char *) = nullptr;
  Result (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void *, void **,
                         void **) = nullptr;
  Result (*streamCreate)(void **, unsigned) = nullptr; // HIP: no flags
  Result (*streamDestroy)(void *) = nullptr;
  Result (*streamSynchronize)(void *) = nullptr;
  Result (*streamWaitEvent)(void *, void *, unsigned) = nullptr;
  Result (*eventCreate)(void **, unsigned) = nullptr; // HIP: no flags
  Result (*eventDestroy)(void *) = nullptr;
  Result (*eventRecord)(void *, void *) = nullptr;
  Result (*eventSynchronize)(void *) = nullptr;
  Result (*eventElapsedTime)(float *, void *, void *) = nullptr;
  Result (*memAlloc)(void **, size_t) = nullptr;
  Result (*memAllocManaged)(void **, size_t, unsigned) = nullptr;
  Result (*memFree)(void *) = nullptr;
  Result (*memcpyAsync)(void *, const void *, size_t, void *) = nullptr;
  Result (*hipMemcpyAsync)(void *, const void *, size_t, int, void *) = nullptr;
  Result (*memsetD32Async)(void *, unsigned, size_t, void *) = nullptr;
  Result (*memsetD16Async)(void *, unsigned short, size_t, void *) = nullptr;
  // CUDA only.
  Result (*deviceGet)(int *, int) = nullptr;
  Result (*primaryCtxRetain)(void **, int) = nullptr;
  Result (*ctxSetCurrent)(void *) = nullptr;
  Result (*deviceGetAttribute)(int *, int, int) = nullptr;
  Result (*cuGetErrorString)(Result, const char **) = nullptr;
  // HIP only.
  Result (*setDevice)(int) = nullptr;
  const char *(*hipGetErrorString)(Result) = nullptr;
  // Both.
  Result (*deviceGetName)(char *, int, int) = nullptr;
};

struct State {
  std::mutex mutex;
  std::string platform; // "", "cuda", "rocm"
  Driver driver;
  bool ready = false;
  void *context = nullptr; // CUDA's primary context
  int device = 0;
  std::string error, deviceName, deviceArch;
  // Host address -> the device copy's descriptor (dlasGpuConstant).
  std::map<std::pair<const void *, int64_t>, DlasUnrankedMemRef> constants;
  // Per-kernel profile (dlasGpuProfile): each module's load order, each
  // function's label, launches waiting for their events, and the samples.
  std::map<void *, int> moduleIndex;
  std::map<void *, std::string> functionLabel;
  bool profiling = false;
  struct Pending {
    std::string label;
    void *start, *end;
  };
  std::vector<Pending> pending;
  std::vector<std::pair<std::string, std::vector<double>>> samples;
  // Caching allocator (mgpuMemAlloc/mgpuMemFree): cuMemFree and hipFree
  // wait for the whole device, so freeing each layer's buffer made the host
  // wait for every kernel before queueing the next. Freed blocks are kept:
  // `streamFree` holds those freed on a stream still running (reused only
  // on that stream, whose order makes it safe), `idle` those whose stream
  // has since been synchronized or destroyed (reusable anywhere).
  // DLAS_GPU_CACHING=0 turns it off (every free goes to the driver).
  bool caching = !getenv("DLAS_GPU_CACHING") ||
                 std::string(getenv("DLAS_GPU_CACHING")) != "0";
  std::map<void *, uint64_t> blockSize;
  std::map<void *, std::multimap<uint64_t, void *>> streamFree;
  std::multimap<uint64_t, void *> idle;
};

State &state() {
  static State instance;
  return instance;
}

void recordError(const std::string &message) {
  State &s = state();
  if (s.error.empty())
    s.error = message;
}

const char *driverName(bool cuda) {
  return cuda ? "CUDA driver" : "HIP runtime";
}

/// Records `what` failing with `result`; true when it did.
bool failed(Result result, const char *what) {
  if (result == 0)
    return false;
  Driver &d = state().driver;
  const char *text = nullptr;
  if (d.cuda && d.cuGetErrorString)
    d.cuGetErrorString(result, &text);
  else if (!d.cuda && d.hipGetErrorString)
    text = d.hipGetErrorString(result);
  recordError(std::string(what) + " failed: " + (text ? text : "error ") +
              (text ? "" : std::to_string(result)) + " (" +
              std::to_string(result) + ")");
  return true;
}

template <typename F> bool bind(void *library, F &slot, const char *name) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  return slot != nullptr;
}

/// Opens `cuda`'s driver library and binds its entry points; false, with
/// the reason in `why`, when it cannot.
bool openDriver(bool cuda, std::string &why) {
  Driver d;
  d.cuda = cuda;
  const char *override =
      getenv(cuda ? "DLAS_CUDA_LIBRARY" : "DLAS_HIP_LIBRARY");
  const char *candidates[] = {
      override ? override : (cuda ? "libcuda.so.1" : "libamdhip64.so"),
      override || cuda ? nullptr : "libamdhip64.so.6",
      override || cuda ? nullptr : "libamdhip64.so.5"};
  std::string reasons;
  for (const char *name : candidates) {
    if (!name)
      continue;
    d.library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (d.library)
      break;
    const char *why = dlerror();
    reasons += std::string(reasons.empty() ? "" : "; ") + (why ? why : name);
  }
  if (!d.library) {
    why = std::string("cannot load the ") + driverName(cuda) + " (" + reasons +
          "): is the " + (cuda ? "NVIDIA driver" : "ROCm runtime") +
          " installed?";
    return false;
  }
  bool ok = true;
  void *l = d.library;
  if (cuda) {
    ok &= bind(l, d.init, "cuInit");
    ok &= bind(l, d.deviceGet, "cuDeviceGet");
    ok &= bind(l, d.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    ok &= bind(l, d.ctxSetCurrent, "cuCtxSetCurrent");
    ok &= bind(l, d.deviceGetAttribute, "cuDeviceGetAttribute");
    ok &= bind(l, d.deviceGetName, "cuDeviceGetName");
    ok &= bind(l, d.cuGetErrorString, "cuGetErrorString");
    ok &= bind(l, d.moduleLoadData, "cuModuleLoadData");
    ok &= bind(l, d.moduleUnload, "cuModuleUnload");
    ok &= bind(l, d.moduleGetFunction, "cuModuleGetFunction");
    ok &= bind(l, d.launchKernel, "cuLaunchKernel");
    ok &= bind(l, d.streamCreate, "cuStreamCreate");
    ok &= bind(l, d.streamDestroy, "cuStreamDestroy_v2");
    ok &= bind(l, d.streamSynchronize, "cuStreamSynchronize");
    ok &= bind(l, d.streamWaitEvent, "cuStreamWaitEvent");
    ok &= bind(l, d.eventCreate, "cuEventCreate");
    ok &= bind(l, d.eventDestroy, "cuEventDestroy_v2");
    ok &= bind(l, d.eventRecord, "cuEventRecord");
    ok &= bind(l, d.eventSynchronize, "cuEventSynchronize");
    ok &= bind(l, d.eventElapsedTime, "cuEventElapsedTime");
    ok &= bind(l, d.memAlloc, "cuMemAlloc_v2");
    ok &= bind(l, d.memAllocManaged, "cuMemAllocManaged");
    ok &= bind(l, d.memFree, "cuMemFree_v2");
    ok &= bind(l, d.memcpyAsync, "cuMemcpyAsync");
    ok &= bind(l, d.memsetD32Async, "cuMemsetD32Async");
    ok &= bind(l, d.memsetD16Async, "cuMemsetD16Async");
  } else {
    ok &= bind(l, d.init, "hipInit");
    ok &= bind(l, d.setDevice, "hipSetDevice");
    ok &= bind(l, d.deviceGetName, "hipDeviceGetName");
    ok &= bind(l, d.hipGetErrorString, "hipGetErrorString");
    ok &= bind(l, d.moduleLoadData, "hipModuleLoadData");
    ok &= bind(l, d.moduleUnload, "hipModuleUnload");
    ok &= bind(l, d.moduleGetFunction, "hipModuleGetFunction");
    ok &= bind(l, d.launchKernel, "hipModuleLaunchKernel");
    ok &= bind(l, d.streamCreate, "hipStreamCreateWithFlags");
    ok &= bind(l, d.streamDestroy, "hipStreamDestroy");
    ok &= bind(l, d.streamSynchronize, "hipStreamSynchronize");
    ok &= bind(l, d.streamWaitEvent, "hipStreamWaitEvent");
    ok &= bind(l, d.eventCreate, "hipEventCreateWithFlags");
    ok &= bind(l, d.eventDestroy, "hipEventDestroy");
    ok &= bind(l, d.eventRecord, "hipEventRecord");
    ok &= bind(l, d.eventSynchronize, "hipEventSynchronize");
    ok &= bind(l, d.eventElapsedTime, "hipEventElapsedTime");
    ok &= bind(l, d.memAlloc, "hipMalloc");
    ok &= bind(l, d.memAllocManaged, "hipMallocManaged");
    ok &= bind(l, d.memFree, "hipFree");
    ok &= bind(l, d.hipMemcpyAsync, "hipMemcpyAsync");
    ok &= bind(l, d.memsetD32Async, "hipMemsetD32Async");
    ok &= bind(l, d.memsetD16Async, "hipMemsetD16Async");
  }
  if (!ok) {
    why = std::string("the ") + driverName(cuda) +
          " library lacks an entry point DLAS needs (too old?)";
    dlclose(d.library);
    return false;
  }
  state().driver = d;
  return true;
}

/// Opens the driver and the first device once; makes the device current on
/// the calling thread. False (error recorded) when there is none.
bool ready() {
  State &s = state();
  if (!s.error.empty())
    return false;
  if (!s.ready) {
    std::string cudaWhy, hipWhy;
    if (s.platform.empty()) {
      // No platform named: the first driver that loads.
      if (!openDriver(true, cudaWhy) && !openDriver(false, hipWhy)) {
        recordError("no GPU driver: " + cudaWhy + "; " + hipWhy);
        return false;
      }
    } else if (!openDriver(s.platform == "cuda", cudaWhy)) {
      recordError(cudaWhy);
      return false;
    }
    Driver &d = s.driver;
    if (failed(d.init(0), d.cuda ? "cuInit" : "hipInit"))
      return false;
    char name[256] = {0};
    if (d.cuda) {
      int device = 0, major = 0, minor = 0;
      if (failed(d.deviceGet(&device, 0), "cuDeviceGet") ||
          failed(d.primaryCtxRetain(&s.context, device),
                 "cuDevicePrimaryCtxRetain"))
        return false;
      s.device = device;
      // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR.
      d.deviceGetAttribute(&major, 75, device);
      d.deviceGetAttribute(&minor, 76, device);
      s.deviceArch = "sm_" + std::to_string(major * 10 + minor);
    } else if (failed(d.setDevice(0), "hipSetDevice")) {
      return false;
    }
    d.deviceGetName(name, sizeof(name) - 1, s.device);
    s.deviceName = name;
    s.platform = d.cuda ? "cuda" : "rocm";
    s.ready = true;
  }
  if (s.driver.cuda)
    return !failed(s.driver.ctxSetCurrent(s.context), "cuCtxSetCurrent");
  return !failed(s.driver.setDevice(s.device), "hipSetDevice");
}

/// A cached block of at least `size` bytes and at most a quarter more
/// (best fit), taken out of `blocks`; null when there is none.
void *takeCachedBlock(std::multimap<uint64_t, void *> &blocks,
                      uint64_t size) {
  auto fit = blocks.lower_bound(size);
  if (fit == blocks.end() || fit->first > size + size / 4)
    return nullptr;
  void *pointer = fit->second;
  blocks.erase(fit);
  return pointer;
}

/// `stream`'s work is done: the blocks freed on it are idle.
void retireStreamBlocks(void *stream) {
  State &s = state();
  auto list = s.streamFree.find(stream);
  if (list == s.streamFree.end())
    return;
  s.idle.insert(list->second.begin(), list->second.end());
  s.streamFree.erase(list);
}

/// Gives the idle cached blocks back to the driver.
void releaseIdleBlocks() {
  State &s = state();
  for (auto &[size, pointer] : s.idle) {
    s.blockSize.erase(pointer);
    failed(s.driver.memFree(pointer), "freeing device memory");
  }
  s.idle.clear();
}

/// Locks the state and opens the driver; the guard's owner checks `ok`.
struct Call {
  std::lock_guard<std::mutex> lock{state().mutex};
  bool ok = ready();
};
} // namespace

extern "C" {

int dlasGpuSetPlatform(const char *api) {
  std::lock_guard<std::mutex> lock(state().mutex);
  State &s = state();
  std::string name = api ? api : "";
  if (name != "cuda" && name != "rocm") {
    recordError("unknown GPU platform '" + name + "' (cuda or rocm)");
    return -1;
  }
  if (s.ready && s.platform != name) {
    recordError("the " + s.platform +
                " driver is already open; cannot "
                "switch to " +
                name);
    return -1;
  }
  s.platform = name;
  return 0;
}

int dlasGpuInit(void) {
  Call call;
  return call.ok ? 0 : -1;
}

const char *dlasGpuLastError(void) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().error.empty() ? nullptr : state().error.c_str();
}

void dlasGpuClearError(void) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().error.clear();
}

void dlasGpuReleaseCache(void) {
  Call call;
  if (call.ok)
    releaseIdleBlocks();
}

const char *dlasGpuDeviceName(void) { return state().deviceName.c_str(); }
const char *dlasGpuDeviceArch(void) { return state().deviceArch.c_str(); }

//===- MLIR's mgpu* host ABI (mlir/lib/ExecutionEngine/*RuntimeWrappers) -===//

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  Call call;
  void *module = nullptr;
  if (call.ok && !failed(state().driver.moduleLoadData(&module, data),
                         "loading a kernel module"))
    state().moduleIndex.emplace(module, state().moduleIndex.size());
  return module;
}

void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  // The driver compiles PTX at its own optimization level.
  return mgpuModuleLoad(data, 0);
}

void mgpuModuleUnload(void *module) {
  Call call;
  if (call.ok && module)
    failed(state().driver.moduleUnload(module), "unloading a kernel module");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Call call;
  void *function = nullptr;
  if (call.ok && module &&
      !failed(state().driver.moduleGetFunction(&function, module, name),
              (std::string("finding kernel ") + name).c_str())) {
    // Kernels share their function name (one per module): the module's
    // load order tells them apart.
    auto index = state().moduleIndex.find(module);
    state().functionLabel[function] =
        "#" +
        std::to_string(index == state().moduleIndex.end() ? -1
                                                          : index->second) +
        " " + name;
  }
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  Call call;
  if (!call.ok || !function)
    return;
  State &s = state();
  Driver &d = s.driver;
  void *start = nullptr, *end = nullptr;
  // Timing events around the launch, read by dlasGpuProfileFlush.
  if (s.profiling &&
      (failed(d.eventCreate(&start, 0), "creating a timing event") ||
       failed(d.eventCreate(&end, 0), "creating a timing event") ||
       failed(d.eventRecord(start, stream), "recording a timing event")))
    return;
  if (failed(d.launchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                            blockZ, sharedMemBytes, stream, params, extra),
             "launching a kernel"))
    return;
  if (!s.profiling ||
      failed(d.eventRecord(end, stream), "recording a timing event"))
    return;
  std::string label = s.functionLabel[function] + " grid " +
                      std::to_string(gridX) + "x" + std::to_string(gridY) +
                      "x" + std::to_string(gridZ) + " block " +
                      std::to_string(blockX) + "x" + std::to_string(blockY) +
                      "x" + std::to_string(blockZ);
  s.pending.push_back({label, start, end});
}

void *mgpuStreamCreate() {
  Call call;
  void *stream = nullptr;
  // Non-blocking: no implicit synchronization with the legacy stream.
  if (call.ok)
    failed(state().driver.streamCreate(&stream, 1), "creating a stream");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  Call call;
  if (!call.ok || !stream)
    return;
  // The driver finishes a destroyed stream's work before releasing it; the
  // host does not wait, so its freed blocks need the wait here.
  if (!failed(state().driver.streamSynchronize(stream),
              "waiting for the GPU (a kernel or copy failed)"))
    retireStreamBlocks(stream);
  failed(state().driver.streamDestroy(stream), "destroying a stream");
}

void mgpuStreamSynchronize(void *stream) {
  Call call;
  if (call.ok && !failed(state().driver.streamSynchronize(stream),
                         "waiting for the GPU (a kernel or copy failed)"))
    retireStreamBlocks(stream);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  Call call;
  if (call.ok && event)
    failed(state().driver.streamWaitEvent(stream, event, 0),
           "ordering streams");
}

void *mgpuEventCreate() {
  Call call;
  void *event = nullptr;
  // Without timing: events here only order streams.
  if (call.ok)
    failed(state().driver.eventCreate(&event, 2), "creating an event");
  return event;
}

void mgpuEventDestroy(void *event) {
  Call call;
  if (call.ok && event)
    failed(state().driver.eventDestroy(event), "destroying an event");
}

void mgpuEventSynchronize(void *event) {
  Call call;
  if (call.ok && event)
    failed(state().driver.eventSynchronize(event), "waiting for an event");
}

void mgpuEventRecord(void *event, void *stream) {
  Call call;
  if (call.ok && event)
    failed(state().driver.eventRecord(event, stream), "recording an event");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  Call call;
  void *pointer = nullptr;
  if (!call.ok || sizeBytes == 0)
    return pointer;
  State &s = state();
  Driver &d = s.driver;
  if (isHostShared) {
    failed(d.memAllocManaged(&pointer, sizeBytes, /*global=*/1),
           "allocating managed memory");
    return pointer;
  }
  if (s.caching) {
    if (stream)
      if (auto list = s.streamFree.find(stream); list != s.streamFree.end())
        if ((pointer = takeCachedBlock(list->second, sizeBytes)))
          return pointer;
    if ((pointer = takeCachedBlock(s.idle, sizeBytes)))
      return pointer;
  }
  Result result = d.memAlloc(&pointer, sizeBytes);
  if (result != 0 && !s.idle.empty()) {
    // Out of memory, perhaps because of what the cache holds: return the
    // idle blocks to the driver and try once more.
    releaseIdleBlocks();
    result = d.memAlloc(&pointer, sizeBytes);
  }
  if (failed(result, ("allocating " + std::to_string(sizeBytes) +
                      " bytes of device memory")
                         .c_str()))
    return nullptr;
  s.blockSize[pointer] = sizeBytes;
  return pointer;
}

void mgpuMemFree(void *pointer, void *stream) {
  Call call;
  if (!call.ok || !pointer)
    return;
  State &s = state();
  auto block = s.blockSize.find(pointer);
  // Managed memory, a block from before caching was turned off, or one
  // freed outside any stream (whose work the cache could not order after
  // the next user's): back to the driver, which waits for the device.
  if (!s.caching || block == s.blockSize.end() || !stream) {
    if (block != s.blockSize.end())
      s.blockSize.erase(block);
    failed(s.driver.memFree(pointer), "freeing device memory");
    return;
  }
  s.streamFree[stream].emplace(block->second, pointer);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  Call call;
  if (!call.ok || sizeBytes == 0)
    return;
  Driver &d = state().driver;
  if (d.cuda)
    failed(d.memcpyAsync(dst, src, sizeBytes, stream), "copying memory");
  else
    failed(
        d.hipMemcpyAsync(dst, src, sizeBytes, /*hipMemcpyDefault=*/4, stream),
        "copying memory");
}

void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream) {
  Call call;
  if (call.ok && count)
    failed(state().driver.memsetD32Async(dst, value, count, stream),
           "setting memory");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  Call call;
  if (call.ok && count)
    failed(state().driver.memsetD16Async(dst, value, count, stream),
           "setting memory");
}

void mgpuSetDefaultDevice(int32_t device) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().device = device;
}

//===- Per-kernel profile ------------------------------------------------===//

void dlasGpuProfile(int enable) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().profiling = enable != 0;
}

int dlasGpuProfileFlush(void) {
  Call call;
  State &s = state();
  Driver &d = s.driver;
  if (!call.ok)
    return -1;
  for (State::Pending &launch : s.pending) {
    float ms = 0;
    if (failed(d.eventSynchronize(launch.end), "waiting for a timing event") ||
        failed(d.eventElapsedTime(&ms, launch.start, launch.end),
               "reading a timing event"))
      return -1;
    d.eventDestroy(launch.start);
    d.eventDestroy(launch.end);
    auto it =
        std::find_if(s.samples.begin(), s.samples.end(),
                     [&](auto &entry) { return entry.first == launch.label; });
    if (it == s.samples.end())
      it = s.samples.insert(s.samples.end(), {launch.label, {}});
    it->second.push_back(ms);
  }
  s.pending.clear();
  return 0;
}

void dlasGpuProfileReset(void) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().samples.clear();
}

int dlasGpuProfileKernels(void) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return static_cast<int>(state().samples.size());
}

const char *dlasGpuProfileLabel(int kernel) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().samples.at(kernel).first.c_str();
}

int dlasGpuProfileSamples(int kernel) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return static_cast<int>(state().samples.at(kernel).second.size());
}

double dlasGpuProfileSample(int kernel, int sample) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().samples.at(kernel).second.at(sample);
}

//===- Constants ---------------------------------------------------------===//

} // extern "C"

/// A malloc'ed copy of a ranked descriptor, as a returned unranked memref
/// (MLIR's convention: the caller copies it and frees it).
static DlasUnrankedMemRef copyDescriptor(int64_t rank, const void *descriptor) {
  size_t size = sizeof(int64_t) * (3 + 2 * rank);
  void *copy = malloc(size);
  memcpy(copy, descriptor, size);
  return {rank, copy};
}

extern "C" {

DlasUnrankedMemRef dlasGpuConstant(int64_t rank, void *descriptor,
                                   int64_t bytes) {
  Call call;
  // After an error: the host buffer itself (the caller checks the error).
  if (!call.ok)
    return copyDescriptor(rank, descriptor);
  State &s = state();
  // A ranked descriptor: allocated, aligned, offset, sizes[rank],
  // strides[rank].
  auto *fields = static_cast<int64_t *>(descriptor);
  char *aligned = reinterpret_cast<char *>(fields[1]);
  int64_t elements = 1;
  for (int64_t i = 0; i < rank; ++i)
    elements *= fields[3 + i];
  int64_t elementBytes = elements ? bytes / elements : 0;
  const char *host = aligned + fields[2] * elementBytes;
  auto key = std::make_pair(static_cast<const void *>(host), bytes);
  // The caller frees what it gets: every call returns a new copy.
  if (auto it = s.constants.find(key); it != s.constants.end())
    return copyDescriptor(rank, it->second.descriptor);
  void *device = nullptr;
  Driver &d = s.driver;
  if (bytes > 0) {
    if (failed(d.memAlloc(&device, bytes), "allocating a constant"))
      return copyDescriptor(rank, descriptor);
    bool copyFailed =
        d.cuda ? failed(d.memcpyAsync(device, host, bytes, nullptr),
                        "copying a constant to the GPU")
               : failed(d.hipMemcpyAsync(device, host, bytes, 4, nullptr),
                        "copying a constant to the GPU");
    if (copyFailed ||
        failed(d.streamSynchronize(nullptr), "copying a constant to the GPU"))
      return copyDescriptor(rank, descriptor);
  }
  size_t size = sizeof(int64_t) * (3 + 2 * rank);
  auto *kept = static_cast<int64_t *>(malloc(size));
  memcpy(kept, fields, size);
  kept[0] = kept[1] = reinterpret_cast<int64_t>(device);
  kept[2] = 0;
  DlasUnrankedMemRef cached{rank, kept};
  s.constants[key] = cached;
  return copyDescriptor(rank, kept);
}

// One name per element type, as dlas-gpu-device-buffers declares them.
#define DLAS_GPU_CONSTANT(type)                                                \
  DlasUnrankedMemRef dlas_gpu_constant_##type(int64_t rank, void *descriptor,  \
                                              int64_t bytes) {                 \
    return dlasGpuConstant(rank, descriptor, bytes);                           \
  }
DLAS_GPU_CONSTANT(f64)
DLAS_GPU_CONSTANT(f32)
DLAS_GPU_CONSTANT(f16)
DLAS_GPU_CONSTANT(bf16)
DLAS_GPU_CONSTANT(i64)
DLAS_GPU_CONSTANT(i32)
DLAS_GPU_CONSTANT(i16)
DLAS_GPU_CONSTANT(i8)
DLAS_GPU_CONSTANT(i1)
#undef DLAS_GPU_CONSTANT

} // extern "C"
