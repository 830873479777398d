# Finds the third-party libraries. Everything comes from the system or CMAKE_PREFIX_PATH
# (a GPU host without a package registry passes unpacked .deb files there); nothing is
# downloaded. When something is missing, the configure step stops with the Debian package
# names to install, and writes them to ${CMAKE_BINARY_DIR}/missing-debian-packages.txt so
# that ctest/quickstart.sh can install exactly what is missing.

set(_hl_missing_packages "")
set(_hl_missing_what "")

macro(_hl_require package debian_packages what)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    list(APPEND _hl_missing_packages ${debian_packages})
    list(APPEND _hl_missing_what "${what} (${package})")
  endif()
endmacro()

_hl_require(CLI11 libcli11-dev "command-line parsing")
_hl_require(nlohmann_json nlohmann-json3-dev "JSON reports")
if(HIP_LESSONS_BUILD_TESTS)
  _hl_require(GTest "libgtest-dev;libgmock-dev" "unit tests")
endif()
if(HIP_LESSONS_BUILD_BENCHMARKS)
  _hl_require(benchmark libbenchmark-dev "Google Benchmark cases")
endif()
if(HIP_LESSONS_BUILD_DOCS)
  # The docs are optional for running the lessons: without Doxygen the 'docs' target only
  # says what to install (docs/CMakeLists.txt).
  find_package(Doxygen QUIET)
  if(NOT DOXYGEN_FOUND)
    message(STATUS "HIP lessons: Doxygen not found; the 'docs' target will say what to install")
  endif()
endif()

file(REMOVE "${CMAKE_BINARY_DIR}/missing-debian-packages.txt")
if(_hl_missing_packages)
  list(REMOVE_DUPLICATES _hl_missing_packages)
  list(JOIN _hl_missing_packages " " _hl_pkgs)
  list(JOIN _hl_missing_what ", " _hl_whats)
  file(WRITE "${CMAKE_BINARY_DIR}/missing-debian-packages.txt" "${_hl_pkgs}\n")
  message(FATAL_ERROR
    "Missing dependencies: ${_hl_whats}.\n"
    "On Debian/Ubuntu install them with:\n"
    "    sudo apt-get install ${_hl_pkgs}\n"
    "or point CMAKE_PREFIX_PATH at a prefix that has them. Tests, benchmarks and docs can be "
    "turned off with -DHIP_LESSONS_BUILD_TESTS=OFF, -DHIP_LESSONS_BUILD_BENCHMARKS=OFF, "
    "-DHIP_LESSONS_BUILD_DOCS=OFF.")
endif()
