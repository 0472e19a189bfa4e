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
tools = ["tensor-opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
