# mlckpt_install_library_alias(target name [BRINGS file...]): installs
# lib<name>.so so that build scripts written for FTI or SCR (-lfti,
# -lfti_f90, -lscr, -lscrf) link the installed shared library of `target`
# unchanged.
# Without BRINGS, lib<name>.so is a symbolic link to that library. With
# BRINGS, it is a GNU ld linker script,
#   INPUT(lib<target>.so.N AS_NEEDED(file...))
# which links the library and, for a program that calls them itself, the
# given libraries (FTI's libfti brings the iniparser and the MD5 of its
# build, and FTI's test programs call both linking only -lfti). The name
# in INPUT has no directory: ld looks for it beside the script and in the
# -L directories, so the installed tree can be moved.
function(mlckpt_install_library_alias target name)
  cmake_parse_arguments(PARSE_ARGV 2 _alias "" "" "BRINGS")
  set(link ${CMAKE_SHARED_LIBRARY_PREFIX}${name}${CMAKE_SHARED_LIBRARY_SUFFIX})
  set(dir "\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
  if(NOT _alias_BRINGS)
    install(CODE "
      file(CREATE_LINK \"$<TARGET_FILE_NAME:${target}>\" \"${dir}/${link}\" SYMBOLIC)
      message(STATUS \"Installing: ${dir}/${link} -> $<TARGET_FILE_NAME:${target}>\")
    ")
    return()
  endif()
  set(brings)
  foreach(file IN LISTS _alias_BRINGS)
    string(APPEND brings " \"${file}\"")
  endforeach()
  set(script ${CMAKE_CURRENT_BINARY_DIR}/linker-scripts/${link})
  file(GENERATE OUTPUT ${script} CONTENT
"/* GNU ld script (mlckpt): -l${name} links $<TARGET_SONAME_FILE_NAME:${target}> and, as ${name}'s own library
   brings them, the libraries in AS_NEEDED to programs that call them. */
INPUT($<TARGET_SONAME_FILE_NAME:${target}> AS_NEEDED(${brings} ))
")
  # A symbolic link left by an earlier installation would be written through.
  install(CODE "file(REMOVE \"${dir}/${link}\")")
  install(FILES ${script} DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
