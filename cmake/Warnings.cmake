# Warning flags as an interface target that every proofpipe target links.
add_library(pp_warnings INTERFACE)
target_compile_options(pp_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-pedantic>
  $<$<AND:$<BOOL:${PP_STRICT}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>
  # GCC 12's -Wrestrict misfires inside libstdc++'s std::string at -O3 (GCC PR 105651).
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<COMPILE_LANGUAGE:CXX>>:-Wno-restrict>)
# Release builds: the arithmetic needs -O3 and BMI2/ADX (mulx/adcx) on x86-64;
# PP_NATIVE=OFF gives a portable build.
option(PP_NATIVE "Tune for the build machine (-march=native)" ON)
add_library(pp_arch INTERFACE)
if(PP_NATIVE)
  target_compile_options(pp_arch INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
target_compile_options(pp_arch INTERFACE $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-O3>)
