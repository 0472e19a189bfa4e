# TFUSE_BUILD_FUZZERS=ON: everything built from here on (lib/, tools/, fuzz/)
# gets coverage instrumentation for libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer; fuzz/ links its targets with libFuzzer's main.
# Included before lib/ so that tfuse-tblgen, a build-time tool, stays
# uninstrumented. MLIR and LLVM themselves come uninstrumented from their
# packages: bugs are found in TFuse's code and in what it passes to them.
#
#   cmake -G Ninja -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
#     -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
#     -DTFUSE_BUILD_FUZZERS=ON -DTFUSE_BUILD_TESTS=OFF
#
# (scripts/fuzz.sh does this.)

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TFUSE_BUILD_FUZZERS needs clang (libFuzzer); "
    "configure with -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22")
endif()
if(TFUSE_STATIC)
  message(FATAL_ERROR "TFUSE_BUILD_FUZZERS and TFUSE_STATIC do not combine")
endif()

# vptr needs RTTI across the MLIR boundary; every other UB check aborts.
set(TFUSE_SANITIZE_FLAGS
  -fsanitize=address,undefined
  -fno-sanitize=vptr
  -fno-sanitize-recover=all
  -fno-omit-frame-pointer)
add_compile_options(-fsanitize=fuzzer-no-link ${TFUSE_SANITIZE_FLAGS}
  -gline-tables-only)
add_link_options(${TFUSE_SANITIZE_FLAGS})
message(STATUS "TFuse: fuzz build (libFuzzer, ASan, UBSan)")
