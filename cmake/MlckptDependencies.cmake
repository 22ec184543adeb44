# Every dependency is an installed package (Debian's, a site's, Spack's); nothing is vendored.
set(_mlckpt_mpi_components C CXX)
if(MLCKPT_FORTRAN)
  list(APPEND _mlckpt_mpi_components Fortran)
endif()
find_package(MPI REQUIRED COMPONENTS ${_mlckpt_mpi_components})
# Which MPI it is chooses the HDF5 below: asked of mpi.h, so that a build
# folder configured again asks too.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
check_symbol_exists(OPEN_MPI mpi.h MLCKPT_MPI_IS_OPEN_MPI)
check_symbol_exists(MPICH_VERSION mpi.h MLCKPT_MPI_IS_MPICH)
unset(CMAKE_REQUIRED_INCLUDES)
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
# HDF5 checkpoints (ckpt_io = 5): a parallel HDF5, used serially per rank
# (FTI_L4_H5_SINGLE: collectively), built with the MPI found above. Debian
# names its pkg-config module after that MPI (hdf5-openmpi, hdf5-mpich);
# an HDF5 installed alone (Spack's) calls it hdf5.
set(MLCKPT_HDF5_MODULE "" CACHE STRING
    "pkg-config module of the parallel HDF5 (default: the one named after the MPI found, else hdf5)")
if(MLCKPT_HDF5)
  if(MLCKPT_HDF5_MODULE)
    set(_mlckpt_hdf5_modules ${MLCKPT_HDF5_MODULE})
  elseif(MLCKPT_MPI_IS_OPEN_MPI)
    set(_mlckpt_hdf5_modules hdf5-openmpi hdf5)
  elseif(MLCKPT_MPI_IS_MPICH)
    set(_mlckpt_hdf5_modules hdf5-mpich hdf5)
  else()
    set(_mlckpt_hdf5_modules hdf5)
  endif()
  pkg_search_module(HDF5 REQUIRED IMPORTED_TARGET ${_mlckpt_hdf5_modules})
  set(CMAKE_REQUIRED_INCLUDES ${HDF5_INCLUDE_DIRS} ${MPI_C_INCLUDE_DIRS})
  check_symbol_exists(H5_HAVE_PARALLEL H5pubconf.h MLCKPT_HDF5_IS_PARALLEL)
  unset(CMAKE_REQUIRED_INCLUDES)
  if(NOT MLCKPT_HDF5_IS_PARALLEL)
    message(FATAL_ERROR "the HDF5 found (pkg-config module ${HDF5_MODULE_NAME}, ${HDF5_INCLUDE_DIRS}) is not built "
                        "with MPI; mlckpt needs a parallel HDF5, or MLCKPT_HDF5=OFF")
  endif()
endif()
