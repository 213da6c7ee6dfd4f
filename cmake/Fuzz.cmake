# -DPP_FUZZ=ON: the whole build is instrumented for libFuzzer (coverage
# without libFuzzer's main) plus ASan and UBSan, so a fuzz target finds bugs
# in the readers it calls, not only in its own file. Clang only: libFuzzer
# ships with clang (Debian: clang-14, libfuzzer-14-dev). Targets: fuzz/.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "PP_FUZZ=ON needs clang (CC=clang CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
endif()
if(PP_CUDA STREQUAL "ON")
  message(FATAL_ERROR "PP_FUZZ=ON builds host code only: configure with -DPP_CUDA=OFF")
endif()
set(PP_CUDA OFF CACHE STRING "" FORCE)
# -fno-sanitize-recover: a UBSan finding stops the run like an ASan one, so
# libFuzzer saves the input. -gline-tables-only: reports with file:line at a
# fraction of -g's compile time.
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -gline-tables-only)
add_link_options(-fsanitize=address,undefined)
