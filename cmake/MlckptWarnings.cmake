# Warnings for the project's own targets (not for third-party headers).
add_library(mlckpt_warnings INTERFACE)
target_compile_options(mlckpt_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast>)
