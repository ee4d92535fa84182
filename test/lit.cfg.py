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

tool_dirs = [config.dlas_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["dlas-opt", "dlas-run", "dlas-import"], tool_dirs)

# Execution tests compare against PyTorch on Debian's /usr/bin/python3.
def _has_torch():
    try:
        subprocess.run([config.host_python, "-c", "import torch, numpy"],
                       check=True, capture_output=True, timeout=120)
        return True
    except Exception:
        return False

if _has_torch():
    config.available_features.add("torch")
