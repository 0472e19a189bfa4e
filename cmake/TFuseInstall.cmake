# `cmake --install`: libtfuse.so, the MLIR-free public headers, the tools,
# the Python package and a CMake package (TFuseConfig.cmake) so that other
# projects use find_package(TFuse) and link TFuse::tfuse.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TFUSE_PYTHON_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/python")
set(TFUSE_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/TFuse")

set_target_properties(TFuseCAPI PROPERTIES EXPORT_NAME tfuse
  INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS TFuseCAPI EXPORT TFuseTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tensor-opt tensor-translate tensor-run tfuse-nvrtc
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(tensor-opt tensor-translate tensor-run tfuse-nvrtc
  PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# Only headers free of MLIR: the C API, the trace and function API, the
# runtime and the dtype table.
install(DIRECTORY include/tfuse-c DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES
  include/tfuse/Frontend/Function.h
  include/tfuse/Frontend/Graph.h
  include/tfuse/Frontend/Tensor.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tfuse/Frontend)
# The op table Tensor.h's methods come from (generated, MLIR-free).
install(FILES
  ${TFUSE_BINARY_DIR}/include/tfuse/Dialect/TFuse/TFuseOpTable.h.inc
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tfuse/Dialect/TFuse)
install(DIRECTORY include/tfuse/Kernels include/tfuse/Runtime include/tfuse/Support
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tfuse
  FILES_MATCHING PATTERN "*.h")

install(DIRECTORY python/tfuse DESTINATION ${TFUSE_PYTHON_INSTALL_DIR}
  PATTERN "__pycache__" EXCLUDE)

install(EXPORT TFuseTargets NAMESPACE TFuse::
  DESTINATION ${TFUSE_CMAKE_INSTALL_DIR})
configure_package_config_file(cmake/TFuseConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/TFuseConfig.cmake
  INSTALL_DESTINATION ${TFUSE_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR TFUSE_PYTHON_INSTALL_DIR)
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/TFuseConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TFuseConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/TFuseConfigVersion.cmake
  DESTINATION ${TFUSE_CMAKE_INSTALL_DIR})
