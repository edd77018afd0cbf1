# packaging.cmake: `cpack -G DEB` in a build folder packs what `cmake --install` installs (bin/,
# share/mandelscope/, the desktop entry and its icons) under /usr, as mandelscope_VERSION_ARCH.deb.
# The installed binary finds its data in /usr/share/mandelscope through its relative lookup
# (compute/io/assets.h: <exe dir>/../share/mandelscope).
#
# Depends comes from dpkg-shlibdeps (package dpkg-dev), which maps every library the binary links
# to the Debian package that provides it, so `apt install ./mandelscope_*.deb` on a fresh Debian
# 12 pulls in GLFW, GL, libgomp, Highway, MPFR, ... A CUDA build links cudart statically and
# loads the driver at run time (compute/CMakeLists.txt), so the package depends on no CUDA
# package; without a driver it runs on the CPU.
set(MANDELSCOPE_PACKAGE_MAINTAINER "Mandelscope maintainers <maintainers@mandelscope.invalid>"
    CACHE STRING "The Maintainer field of the .deb that cpack makes")

set(CPACK_PACKAGE_NAME mandelscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "interactive Mandelbrot set explorer, on the CPU and with CUDA")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "interactive Mandelbrot set explorer, on the CPU and with CUDA
 Mandelscope explores the Mandelbrot set, the Multibrot sets, the Burning Ship
 and the Tricorn, and their Julia sets, in a window (pan, zoom, box zoom,
 history, PNG export) or from the command line (mandelscope render).
 Deep zooms to 1E60000 render by perturbation with series approximation
 (MPFR reference orbits). The CPU path is vectorised with Highway; a CUDA GPU,
 where one is present, renders the same pictures faster.")
set(CPACK_PACKAGE_CONTACT "${MANDELSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MANDELSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mandelscope_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
include(CPack)
message(STATUS "Packaging: cpack -G DEB makes ${CPACK_PACKAGE_NAME}_${CPACK_PACKAGE_VERSION}_<arch>.deb")
