# Warning flags as an interface target that every proofpipe target links.
add_library(pp_warnings INTERFACE)
target_compile_options(pp_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-pedantic>
  $<$<AND:$<BOOL:${PP_STRICT}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>
  # GCC 12's -Wrestrict misfires inside libstdc++'s std::string at -O3 (GCC PR 105651).
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<COMPILE_LANGUAGE:CXX>>:-Wno-restrict>)
# Release builds: -O3 for the arithmetic. The default build is baseline
# x86-64 and runs on any x86-64 CPU: the fast paths (mulx/adcx field kernels,
# AVX-512 IFMA lanes) are chosen at run time by cpuid. PP_NATIVE=ON builds
# for this machine's CPU only (-march=native; the mulx/adcx choice is then
# made at compile time): a binary built so stops with one line on a CPU
# that lacks what it was built for.
option(PP_NATIVE "Build for this machine's CPU only (-march=native)" OFF)
add_library(pp_arch INTERFACE)
if(PP_NATIVE)
  target_compile_options(pp_arch INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
target_compile_options(pp_arch INTERFACE $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-O3>)
