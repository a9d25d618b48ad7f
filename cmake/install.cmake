# `cmake --install` (and `make install`): headers, the shared and static libraries, the CLI, the
# worker, the shipped cost models, the BLAS drop-in, a CMake package (find_package(gemmtune
# CONFIG) → gemmtune::gemmtune) and gemmtune.pc, laid out as Debian's libhwy-dev and
# libdnnl-dev are: PREFIX/lib/<arch>/cmake/gemmtune/gemmtune-config.cmake and
# PREFIX/lib/<arch>/pkgconfig/gemmtune.pc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GEMMTUNE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gemmtune)

# gemmtune_link_dependencies(VARIABLE): what linking the build tree's gemmtune brings along (the
# libraries of gemmtune_core and gemmtune), for the libraries made here from the same objects.
function(gemmtune_link_dependencies variable)
  set(all "")
  foreach(target gemmtune_core gemmtune)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    if(libraries)
      list(APPEND all ${libraries})
    endif()
  endforeach()
  list(REMOVE_ITEM all gemmtune_core gemmtune)
  list(REMOVE_DUPLICATES all)
  set(${variable} ${all} PARENT_SCOPE)
endfunction()

# The shared library: the very objects of the static one (compiled position-independent), so it
# costs a link and no compile. Its dependencies are its own (DT_NEEDED): a consumer of
# gemmtune::gemmtune needs none of them on its link line.
gemmtune_link_dependencies(GEMMTUNE_LINK_DEPENDENCIES)
add_library(gemmtune_shared SHARED $<TARGET_OBJECTS:gemmtune_core> $<TARGET_OBJECTS:gemmtune>)
if(TARGET gemmtune_cpu_kernels)
  target_sources(gemmtune_shared PRIVATE $<TARGET_OBJECTS:gemmtune_cpu_kernels>)
endif()
set_target_properties(gemmtune_shared PROPERTIES
  OUTPUT_NAME gemmtune VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  EXPORT_NAME gemmtune)
# --exclude-libs: the static archives inside (libxsmm and its "noblas" stub, which defines
# sgemm_, dgemm_ and sgemv_ that only report an error) stay private to it; exported, they would
# stand in for a real BLAS in any process that loads libgemmtune.so.
target_link_libraries(gemmtune_shared PRIVATE ${GEMMTUNE_LINK_DEPENDENCIES})
# --no-undefined: an object left out of it is a link error here, not a failure to load later.
target_link_options(gemmtune_shared PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)
target_include_directories(gemmtune_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(gemmtune_shared INTERFACE cxx_std_20)
add_library(gemmtune::gemmtune ALIAS gemmtune_shared)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gemmtune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gemmtune_shared EXPORT gemmtune-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The static archive is the build tree's own library; its imported target, with the libraries it
# needs on the consumer's link line, is made by gemmtune-config.cmake (a component, `static`).
install(TARGETS gemmtune ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS gemmtune_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET gemmtune_worker)
  install(TARGETS gemmtune_worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gemmtune/models
  FILES_MATCHING PATTERN "*.json")

install(EXPORT gemmtune-targets NAMESPACE gemmtune:: DESTINATION ${GEMMTUNE_INSTALL_CMAKEDIR})

# What the static archive needs, for gemmtune-config.cmake: which optional libraries were built in.
set(GEMMTUNE_STATIC_OPTIONAL "")
foreach(part dnnl xsmm hiredis xgboost)
  if(${part}_FOUND)
    list(APPEND GEMMTUNE_STATIC_OPTIONAL ${part})
  endif()
endforeach()
if(CUDAToolkit_FOUND)
  set(GEMMTUNE_STATIC_CUDA TRUE)
else()
  set(GEMMTUNE_STATIC_CUDA FALSE)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gemmtune-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gemmtune-config.cmake INSTALL_DESTINATION ${GEMMTUNE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gemmtune-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gemmtune-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/gemmtune-config-version.cmake
  DESTINATION ${GEMMTUNE_INSTALL_CMAKEDIR})

# pkg-config: `pkg-config --cflags --libs gemmtune` (shared), `--static` adds what the archive needs.
set(GEMMTUNE_PC_LIBS_PRIVATE "-lsqlite3 -lz")
foreach(part ${GEMMTUNE_STATIC_OPTIONAL})
  if(part STREQUAL "xsmm")
    string(APPEND GEMMTUNE_PC_LIBS_PRIVATE " -lxsmm -lxsmmnoblas -lrt")
  else()
    string(APPEND GEMMTUNE_PC_LIBS_PRIVATE " -l${part}")
  endif()
endforeach()
if(CUDAToolkit_FOUND)
  string(APPEND GEMMTUNE_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart")
endif()
string(APPEND GEMMTUNE_PC_LIBS_PRIVATE " -fopenmp -ldl -lm -pthread")
file(RELATIVE_PATH GEMMTUNE_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" GEMMTUNE_PC_TO_PREFIX "${GEMMTUNE_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/gemmtune.pc.in ${CMAKE_CURRENT_BINARY_DIR}/gemmtune.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gemmtune.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
