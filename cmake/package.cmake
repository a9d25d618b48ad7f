# `cpack -G DEB` in the build folder: a .deb of what `cmake --install` puts under /usr (the
# libraries, CLI, headers, models, CMake package, gemmtune.pc and the BLAS drop-in). Its
# dependencies come from dpkg-shlibdeps; the drop-in is not registered as an alternative for
# libblas.so.3: a user chooses it (README, "A BLAS drop-in").
set(CPACK_PACKAGE_NAME gemmtune)
set(CPACK_PACKAGE_VENDOR gemmtune)
set(CPACK_PACKAGE_CONTACT "gemmtune maintainers <gemmtune@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GEMM autotuner: the fastest correct matrix multiply for every shape at run time")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A shlibs file and an ldconfig trigger, so that libgemmtune.so.0 is found once installed.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
include(CPack)
