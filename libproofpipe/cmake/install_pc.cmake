# Install-time step of libproofpipe's component: writes proofpipe.pc,
# rapidsnark.pc and rapidsnark-ulong.pc for the prefix actually installed
# to (cmake --install --prefix, CPack's), which configure time cannot know.
# Their Libs carry -Wl,-rpath,${libdir} unless libdir is one the loader
# searches by default (/lib, /usr/lib, their lib64 and multiarch forms, and
# /usr/local/lib, which Debian's /etc/ld.so.conf.d/libc.conf lists: ldconfig
# once after installing there), so a program linked from them runs without
# LD_LIBRARY_PATH. Needs PP_PC_STAGE (the configured templates) and
# PP_PC_LIBDIR (CMAKE_INSTALL_LIBDIR), set by an install(CODE) before it.
set(pp_libdir "${PP_PC_LIBDIR}")
if(NOT IS_ABSOLUTE "${pp_libdir}")
  set(pp_libdir "${CMAKE_INSTALL_PREFIX}/${pp_libdir}")
endif()
string(REGEX REPLACE "/+$" "" pp_libdir "${pp_libdir}")
if(pp_libdir MATCHES "^/(usr/(local/)?)?lib(32|64|/[a-z0-9_]+-linux-[a-z0-9_]+)?$")
  set(PP_PC_RPATH "")
else()
  set(PP_PC_RPATH "-Wl,-rpath,\${libdir} ")
endif()
foreach(pc proofpipe rapidsnark rapidsnark-ulong)
  configure_file("${PP_PC_STAGE}/${pc}.pc.in" "${PP_PC_STAGE}/installed/${pc}.pc" @ONLY)
  file(INSTALL "${PP_PC_STAGE}/installed/${pc}.pc" DESTINATION "${pp_libdir}/pkgconfig")
endforeach()
