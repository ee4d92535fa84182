# -*- Python -*-
import os
import resource
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "DLAS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlas_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "Inputs"]

# Every test process: at most 10 minutes (lit --timeout, set by check-dlas)
# and 12 GiB of address space; a runaway pattern or JIT fails, it does not
# take the machine down. Limits set here are inherited by the test shells.
_limit = 12 * 1024 ** 3
if config.dlas_sanitizers:
    # ASan reserves terabytes of shadow address space: its own RSS limit
    # replaces the address-space one. Leaks are not checked (LLVM's and
    # MLIR's singletons live until exit); user poisoning is off because
    # the instrumented LLVM headers and the uninstrumented libMLIR disagree
    # on allocator memory (fuzz/AsanOptions.h). A failed allocation returns
    # null, as glibc's does, so that the tools' own errors are tested.
    config.available_features.add("asan")
    config.environment["ASAN_OPTIONS"] = (
        "detect_leaks=0:allow_user_poisoning=0:allocator_may_return_null=1:"
        "hard_rss_limit_mb=%d:"
        "abort_on_error=0" % (_limit // 1024 ** 2))
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
else:
    resource.setrlimit(resource.RLIMIT_AS, (_limit, _limit))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.dlas_tools_dir, append_path=True)

config.substitutions.append(("%python", config.host_python))
config.substitutions.append(("%dlas_lib", config.dlas_lib_dir))
config.substitutions.append(("%dlas_src", config.dlas_src_root))
config.substitutions.append(("%dlas_obj", config.dlas_obj_root))
config.substitutions.append(
    ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(
    ("%mlir_translate", os.path.join(config.llvm_tools_dir, "mlir-translate")))

# A C compiler for the ahead-of-time tests (dlas-compile objects linked
# into C programs) and the directory of Debian's libomp.
import shutil
config.substitutions.append(
    ("%cc", shutil.which("cc") or shutil.which("clang-22") or "cc"))
config.substitutions.append(("%omp_libdir", "/usr/lib/llvm-22/lib"))

tool_dirs = [config.dlas_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["dlas-opt", "dlas-run", "dlas-compile", "dlas-import", "dlas-tune"], tool_dirs)

# What the host can execute, for execution tests: `host-avx2`,
# `host-avx512` (F, BW, DQ, VL: x86-64-v4), `host-avx512bf16`,
# `host-avx512vnni`, `host-amx`. IR tests pin their target and need none.
def _host_cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()

_flags = _host_cpu_flags()
if {"avx2", "fma"} <= _flags:
    config.available_features.add("host-avx2")
if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= _flags:
    config.available_features.add("host-avx512")
if "avx512_bf16" in _flags:
    config.available_features.add("host-avx512bf16")
if "avx512_vnni" in _flags:
    config.available_features.add("host-avx512vnni")
if {"amx_tile", "amx_bf16", "amx_int8"} <= _flags:
    config.available_features.add("host-amx")
# The targets the host can run, widest last: execution tests loop over them.
config.substitutions.append(
    ("%exec_targets", " ".join(["x86-64-v3"] + (
        ["x86-64-v4"] if "host-avx512" in config.available_features else []))))

# int8 runs on x86-64-v3 (the kernel that widens i8 into i32 multiplies),
# and with each int8 dot-product extension the host has (the vpdpbusd
# kernel): AVX-VNNI on AVX2 code, AVX512-VNNI on AVX-512 code; plain
# x86-64-v4 where the host has AVX-512 without VNNI. Written cpu:+features.
_int8_targets = ["x86-64-v3"]
if "avx_vnni" in _flags:
    _int8_targets.append("x86-64-v3:+avxvnni")
if "host-avx512" in config.available_features:
    _int8_targets.append("x86-64-v4:+avx512vnni"
                         if "host-avx512vnni" in config.available_features
                         else "x86-64-v4")
# AMX hosts run the AMX tile kernels too (x86-64-v4 with the AMX features
# named, so that the int8 harness sees a dot-product target).
if "host-amx" in config.available_features:
    _int8_targets.append("x86-64-v4:+avx512vnni,+amx-tile,+amx-int8")
config.substitutions.append(("%int8_targets", " ".join(_int8_targets)))

# bf16 runs on every target the host runs, on AVX512-BF16 hosts on the
# vdpbf16ps kernel, and on AMX hosts on the AMX-BF16 tile kernel.
config.substitutions.append(
    ("%bf16_targets", " ".join(["x86-64-v3"] + (
        ["x86-64-v4"] if "host-avx512" in config.available_features else []) + (
        ["x86-64-v4:+avx512bf16"]
        if {"host-avx512", "host-avx512bf16"} <= config.available_features
        else []) + (
        ["x86-64-v4:+avx512bf16,+amx-tile,+amx-bf16"]
        if "host-amx" in config.available_features else []))))

# The size of the execution matrix. "quick" (make test, CI): the widest
# matrices (a case x several targets or pipelines, marked %rotate) run each
# case on one target or pipeline in turn, so every case and every target
# still runs, in a fraction of the time. "full" (make test-full, or lit
# -Dmatrix=full): every case on every target and pipeline.
_matrix = lit_config.params.get("matrix", "quick")
if _matrix not in ("quick", "full"):
    lit_config.fatal(f"matrix={_matrix}: expected quick or full")
config.substitutions.append(("%rotate", "--rotate" if _matrix == "quick" else ""))

def _python_can_import(modules):
    try:
        subprocess.run([config.host_python, "-c", "import " + ", ".join(modules)],
                       check=True, capture_output=True, timeout=120)
        return True
    except Exception:
        return False

# Execution tests compare against PyTorch on Debian's /usr/bin/python3.
if _python_can_import(["torch", "numpy"]):
    config.available_features.add("torch")

# ONNX's backend conformance cases need Debian's python3-onnx.
if _python_can_import(["onnx", "numpy"]):
    config.available_features.add("onnx")

# GPU code generation. The CUDA toolkit is not in apt: ptxas is looked for
# where findCUDAToolkit() looks (CUDA_ROOT/HOME/PATH, PATH, /usr/local/cuda),
# and the cubin tests need it. ROCm math functions need Debian's
# rocm-device-libs (OCML bitcode).
_ptxas = None
for _root in [os.environ.get("CUDA_ROOT", ""), os.environ.get("CUDA_HOME", ""),
              os.environ.get("CUDA_PATH", ""),
              os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("ptxas") or "/"))),
              "/usr/local/cuda"]:
    # The same test as findCUDAToolkit(): ptxas and libdevice both there.
    _candidate = os.path.join(_root, "bin", "ptxas")
    if _root and os.access(_candidate, os.X_OK) and os.path.exists(
            os.path.join(_root, "nvvm", "libdevice", "libdevice.10.bc")):
        _ptxas = _candidate
        break
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))

def _cuda_device_answers():
    """True where a CUDA driver loads, initializes and reports a device: the
    GPU execution tests (gpu-exec-cuda.test) run there, nowhere else."""
    import ctypes
    try:
        cuda = ctypes.CDLL(os.environ.get("DLAS_CUDA_LIBRARY", "libcuda.so.1"))
        count = ctypes.c_int(0)
        return (cuda.cuInit(0) == 0 and
                cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0)
    except (OSError, AttributeError):
        return False


if _cuda_device_answers():
    config.available_features.add("cuda-gpu")
if os.path.exists("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc"):
    config.available_features.add("rocm-device-libs")
# Tests that build a C helper (the fake GPU driver) need %cc to exist.
if shutil.which("cc") or shutil.which("clang-22"):
    config.available_features.add("cc")
