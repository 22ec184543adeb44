# AddressSanitizer and UndefinedBehaviorSanitizer builds (MLCKPT_SANITIZE).
add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)

# Every program of the build keeps its plugins loaded until it exits
# (tests/support/keep_plugins_loaded.c), so that LeakSanitizer's fast
# unwinder suffices. Called once every target is defined.
function(mlckpt_keep_plugins_loaded)
  add_library(mlckpt_keep_plugins OBJECT ${PROJECT_SOURCE_DIR}/tests/support/keep_plugins_loaded.c)
  set(dirs ${PROJECT_SOURCE_DIR})
  while(dirs)
    list(POP_FRONT dirs dir)
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${subdirs})
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(type STREQUAL "EXECUTABLE")
        target_link_libraries(${target} PRIVATE mlckpt_keep_plugins)
      endif()
    endforeach()
  endwhile()
endfunction()
