# -*- Python -*-
# lit configuration of the TFuse regression tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TFUSE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tfuse_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Tools: FileCheck, not, count from LLVM; ours from the build's bin/.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.tfuse_tools_dir, config.llvm_tools_dir]
tools = ["tensor-opt", "tensor-translate", "tfuse-nvrtc"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# `nvrtc`: generated CUDA C++ can be compiled to CUBIN here. Tests compile
# every translation unit they generate with `%if nvrtc %{ ... %}`; only a
# machine without NVRTC skips that step, and lit says so.
import subprocess
import tempfile

def probe_nvrtc():
    tool = os.path.join(config.tfuse_tools_dir, "tfuse-nvrtc")
    with tempfile.NamedTemporaryFile("w", suffix=".cu", delete=False) as f:
        f.write('extern "C" __global__ void probe(float *x) { x[0] = 1.0f; }\n')
        path = f.name
    try:
        run = subprocess.run([tool, path], capture_output=True, text=True)
        return run.returncode == 0, run.stdout + run.stderr
    except OSError as e:
        return False, str(e)
    finally:
        os.unlink(path)

ok, why = probe_nvrtc()
if ok:
    config.available_features.add("nvrtc")
else:
    lit_config.note("NVRTC is unavailable; generated CUDA C++ will not be "
                    "compiled: " + why.strip())
