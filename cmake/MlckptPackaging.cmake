# Installation of the CMake package (find_package(mlckpt COMPONENTS C CXX
# Fortran)) and of the pkg-config modules mlckpt, mlckpt-cxx, mlckpt-fortran.
include(CMakePackageConfigHelpers)

# Exported as mlckpt::c, mlckpt::cxx, mlckpt::fortran and mlckpt::scrf.
set_target_properties(mlckpt PROPERTIES EXPORT_NAME c)
foreach(_pair "mlckpt_cxx;cxx" "mlckpt_fortran;fortran" "mlckpt_scrf;scrf")
  list(GET _pair 0 _target)
  list(GET _pair 1 _name)
  if(TARGET ${_target})
    set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
  endif()
endforeach()

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mlckpt)
install(EXPORT mlckptTargets NAMESPACE mlckpt:: DESTINATION ${_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mlckptConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mlckptConfig.cmake INSTALL_DESTINATION ${_cmake_dir})
# 0.x releases promise compatibility within a minor version only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mlckptConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mlckptConfig.cmake ${PROJECT_BINARY_DIR}/mlckptConfigVersion.cmake
  DESTINATION ${_cmake_dir})

# pkg-config files that work wherever the tree is installed (or moved).
set(_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH MLCKPT_PC_TO_PREFIX /prefix/${_pc_dir} /prefix)
set(_pc_modules mlckpt mlckpt-cxx)
if(MLCKPT_FORTRAN)
  list(APPEND _pc_modules mlckpt-fortran)
endif()
foreach(_module IN LISTS _pc_modules)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${_module}.pc.in ${PROJECT_BINARY_DIR}/${_module}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_module}.pc DESTINATION ${_pc_dir})
endforeach()

# The same installation found as FTI (find_package(FTI): fti.shared, ...)
# and as SCR (find_package(scr): scr::scr, ...), where FTI and SCR install
# their packages, with the versions of their interfaces mlckpt implements.
set(MLCKPT_CMAKE_DIR ${_cmake_dir})
set(_drop_ins "FTI:FTI:1.6:AnyNewerVersion")
if(MLCKPT_SCR)
  list(APPEND _drop_ins "scr:scr:3.1.0:SameMajorVersion")
endif()
foreach(_entry IN LISTS _drop_ins)
  string(REPLACE ":" ";" _pair "${_entry}")
  list(GET _pair 0 _package)
  list(GET _pair 1 _folder)
  list(GET _pair 2 _version)
  list(GET _pair 3 _compatibility)
  set(_package_dir ${CMAKE_INSTALL_DATADIR}/${_folder}/cmake)
  configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/${_package}Config.cmake.in
    ${PROJECT_BINARY_DIR}/${_package}/${_package}Config.cmake INSTALL_DESTINATION ${_package_dir}
    PATH_VARS MLCKPT_CMAKE_DIR)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/${_package}/${_package}ConfigVersion.cmake
    VERSION ${_version} COMPATIBILITY ${_compatibility})
  install(FILES ${PROJECT_BINARY_DIR}/${_package}/${_package}Config.cmake
                ${PROJECT_BINARY_DIR}/${_package}/${_package}ConfigVersion.cmake
    DESTINATION ${_package_dir})
endforeach()
