# Every dependency is a Debian package; nothing is vendored.
find_package(MPI REQUIRED COMPONENTS C CXX Fortran)
find_package(Python3 REQUIRED COMPONENTS Interpreter)  # generates the Fortran module
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(PkgConfig REQUIRED)

find_path(INIPARSER_INCLUDE_DIR iniparser.h PATH_SUFFIXES iniparser REQUIRED)
find_library(INIPARSER_LIBRARY iniparser REQUIRED)
add_library(mlckpt_dep_iniparser INTERFACE)
target_include_directories(mlckpt_dep_iniparser SYSTEM INTERFACE ${INIPARSER_INCLUDE_DIR})
target_link_libraries(mlckpt_dep_iniparser INTERFACE ${INIPARSER_LIBRARY})

pkg_check_modules(ISAL REQUIRED IMPORTED_TARGET libisal)
# Lossless compression of checkpoint files (core/compress): shuffle, LZ4, Zstandard.
pkg_check_modules(BLOSC REQUIRED IMPORTED_TARGET blosc)
# Error-bounded lossy compression of the variables that ask for it (FTI_SetErrorBound).
find_package(zfp REQUIRED CONFIG)
# HDF5 checkpoints (ckpt_io = 5): Debian's parallel HDF5, used serially per rank.
pkg_check_modules(HDF5 REQUIRED IMPORTED_TARGET hdf5-openmpi)
