# mlckpt_install_library_alias(target name): installs lib<name>.so as a
# symbolic link to the installed shared library of `target`, so that build
# scripts written for FTI (-lfti, -lfti_f90) link mlckpt unchanged.
function(mlckpt_install_library_alias target name)
  set(link ${CMAKE_SHARED_LIBRARY_PREFIX}${name}${CMAKE_SHARED_LIBRARY_SUFFIX})
  install(CODE "
    set(dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
    file(CREATE_LINK \"$<TARGET_FILE_NAME:${target}>\" \"\${dir}/${link}\" SYMBOLIC)
    message(STATUS \"Installing: \${dir}/${link} -> $<TARGET_FILE_NAME:${target}>\")
  ")
endfunction()
