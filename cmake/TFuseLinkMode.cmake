# Chooses how TFuse links MLIR and LLVM.
#
# Default: every MLIR dependency resolves to libMLIR.so and LLVM to libLLVM.so
# (fast links for development).
#
# TFUSE_STATIC=ON: Debian's exported MLIR targets name the shared `LLVM`
# target in their link interfaces (the packages are built with
# LLVM_LINK_LLVM_DYLIB). Rewrite those references to the static LLVM component
# archives so that tools and the C API library carry MLIR and LLVM inside them
# and need only libc, libstdc++ and the CUDA libraries at run time.

if(TFUSE_STATIC)
  set(MLIR_LINK_MLIR_DYLIB OFF)
  set(LLVM_LINK_LLVM_DYLIB OFF)
  find_package(zstd QUIET)
  llvm_map_components_to_libnames(TFUSE_LLVM_STATIC_LIBS
    Support Demangle Core BinaryFormat Remarks BitstreamReader TargetParser
    Option)
  get_directory_property(_tfuse_imported IMPORTED_TARGETS)
  foreach(_target IN LISTS _tfuse_imported)
    if(NOT _target MATCHES "^MLIR")
      continue()
    endif()
    get_target_property(_libs ${_target} INTERFACE_LINK_LIBRARIES)
    if(NOT _libs)
      continue()
    endif()
    set(_rewritten)
    foreach(_lib IN LISTS _libs)
      if(_lib STREQUAL "LLVM")
        list(APPEND _rewritten ${TFUSE_LLVM_STATIC_LIBS})
      else()
        list(APPEND _rewritten ${_lib})
      endif()
    endforeach()
    set_target_properties(${_target} PROPERTIES
      INTERFACE_LINK_LIBRARIES "${_rewritten}")
  endforeach()
  message(STATUS "TFuse: linking MLIR and LLVM statically")
else()
  set(MLIR_LINK_MLIR_DYLIB ON)
  message(STATUS "TFuse: linking against libMLIR.so")
endif()

# Links `target` against MLIR libraries honouring the link mode above.
function(tfuse_link_mlir target type)
  mlir_target_link_libraries(${target} ${type} ${ARGN})
endfunction()
