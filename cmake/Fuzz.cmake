# -DPP_FUZZ=ON: the whole build is instrumented for libFuzzer (coverage
# without libFuzzer's main) on top of the sanitizers of PP_SANITIZE
# (cmake/Sanitize.cmake; address,undefined unless set), so a fuzz target
# finds bugs in the readers it calls, not only in its own file. Clang only:
# libFuzzer ships with clang (Debian: clang-14, libfuzzer-14-dev). Targets:
# fuzz/. The test suites build in the same tree when PP_BUILD_TESTS is on
# (CI runs the sanitizer suites and the fuzz targets from one build).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "PP_FUZZ=ON needs clang (CC=clang CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
endif()
if(NOT PP_SANITIZE)
  set(PP_SANITIZE address,undefined CACHE STRING "" FORCE)
endif()
if(NOT PP_SANITIZE MATCHES "address")
  message(FATAL_ERROR "PP_FUZZ=ON needs AddressSanitizer (PP_SANITIZE=address,undefined), not '${PP_SANITIZE}'")
endif()
add_compile_options(-fsanitize=fuzzer-no-link)

# pp_fuzz_target(<name> <libraries...>): <name>_fuzz.cpp of the calling
# folder (fuzz/), or of its fuzz/ folder (a room's own target that reads its
# src/: service/fuzz/), into <name>_fuzz.
function(pp_fuzz_target name)
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/${name}_fuzz.cpp)
  if(NOT EXISTS ${src})
    set(src ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${name}_fuzz.cpp)
  endif()
  add_executable(${name}_fuzz ${src})
  target_include_directories(${name}_fuzz PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
  target_link_options(${name}_fuzz PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${name}_fuzz PRIVATE ${ARGN} pp_warnings)
endfunction()
