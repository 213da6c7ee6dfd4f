# -DPP_SANITIZE=address,undefined | thread (docs/reliability.md): the whole
# build instrumented with the sanitizers named, with gcc or clang, so the
# test suites run under them (scripts/sanitize.sh). Host code only: nvcc
# does not take these flags, and the CUDA backend is tested on a device.
# -fno-sanitize-recover: a UBSan finding fails the test like an ASan one
# rather than printing and going on. -g1 (clang: -gline-tables-only): stack
# traces with file:line at a fraction of -g's compile time. The x86-64 asm
# field kernels stay on; ASan is told about their loads (ff/detail/mont_x86.hpp).
set(PP_SANITIZE_KNOWN address undefined thread)
string(REPLACE "," ";" PP_SANITIZE_LIST "${PP_SANITIZE}")
foreach(s IN LISTS PP_SANITIZE_LIST)
  if(NOT s IN_LIST PP_SANITIZE_KNOWN)
    message(FATAL_ERROR "PP_SANITIZE: unknown sanitizer '${s}' (known: address, undefined, thread)")
  endif()
endforeach()
if("thread" IN_LIST PP_SANITIZE_LIST AND "address" IN_LIST PP_SANITIZE_LIST)
  message(FATAL_ERROR "PP_SANITIZE: thread and address cannot be combined (build them separately)")
endif()
if(PP_CUDA STREQUAL "ON")
  message(FATAL_ERROR "PP_SANITIZE builds host code only: configure with -DPP_CUDA=OFF")
endif()
set(PP_CUDA OFF CACHE STRING "" FORCE)
string(REPLACE ";" "," pp_sanitize_flag "${PP_SANITIZE_LIST}")
# ASan's fast unwinder walks frame pointers. TSan keeps its own shadow stack
# and needs none, and the register the frame pointer takes is one the 6-limb
# asm kernels cannot spare beside TSan's instrumentation (clang: "inline
# assembly requires more registers than available").
if("address" IN_LIST PP_SANITIZE_LIST)
  set(pp_frame_pointer -fno-omit-frame-pointer)
endif()
add_compile_options(-fsanitize=${pp_sanitize_flag} -fno-sanitize-recover=all ${pp_frame_pointer}
                    $<IF:$<CXX_COMPILER_ID:Clang>,-gline-tables-only,-g1>)
add_link_options(-fsanitize=${pp_sanitize_flag})
# Tests that cannot run under a sanitizer skip themselves with the reason
# (tests/support/sanitizer.hpp): ASan's shadow needs terabytes of address
# space, so an RLIMIT_AS cap kills every process at start, and TSan
# reserves the same.
foreach(s IN LISTS PP_SANITIZE_LIST)
  string(TOUPPER "${s}" su)
  add_compile_definitions(PP_SANITIZE_${su}=1)
endforeach()
message(STATUS "proofpipe: sanitizers ${pp_sanitize_flag}")
