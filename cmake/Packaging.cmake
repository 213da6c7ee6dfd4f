# The Debian package: what `cmake --install` puts under the prefix, as one
# .deb made by CPack (`cpack -G DEB` in a build dir; scripts/package.sh
# configures, builds and packs one with the flags a distributable build
# needs). The package is monolithic: it holds every install component
# (the executables, the queue module, the demo circuit, libproofpipe with
# its headers and .pc files, the systemd unit and the docs), so a
# component added in another folder is packed without a change here.
#
# Paths follow GNUInstallDirs: configured with CMAKE_INSTALL_PREFIX=/usr,
# the libraries go to /usr/lib/<multiarch> (as Debian's do) and the queue
# module to /usr/lib/<multiarch>/proofpipe, the folder service/ builds into
# the loader's search relative to bin/.
include(GNUInstallDirs)

# The systemd unit, with the paths of this prefix: packaging/proofpipe.service
# names /usr/local (the manual install of docs/operations.md); the packed copy
# names /usr/bin and /usr/share/doc. The configured prefix, not the one of
# `cmake --install --prefix`: CPack installs into a staging folder, so an
# install-time prefix would name that folder. Installed, not enabled: its
# ExecStart names a key that the administrator provides first.
set(PP_UNIT_SOURCE ${PROJECT_SOURCE_DIR}/packaging/proofpipe.service)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PP_UNIT_SOURCE})
file(READ ${PP_UNIT_SOURCE} pp_unit)
string(REPLACE "/usr/local/bin/" "${CMAKE_INSTALL_FULL_BINDIR}/" pp_unit "${pp_unit}")
string(REPLACE "/usr/local/share/doc/proofpipe/" "${CMAKE_INSTALL_FULL_DOCDIR}/" pp_unit "${pp_unit}")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/packaging/proofpipe.service CONTENT "${pp_unit}" @ONLY)
# lib/systemd/system under the prefix: /usr/lib/systemd/system for the
# package, /usr/local/lib/systemd/system for a default install; systemd
# reads both.
install(FILES ${CMAKE_BINARY_DIR}/packaging/proofpipe.service DESTINATION lib/systemd/system COMPONENT service)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME proofpipe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR proofpipe)
set(CPACK_PACKAGE_CONTACT "proofpipe developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "multi-process Groth16 prover for circom/snarkjs (BN254, BLS12-381)")
set(CPACK_PACKAGE_DESCRIPTION
    "proofpipe proves Groth16 circuits from circom's and snarkjs's files (zkey, wtns, input JSON)\n\
with snarkjs-compatible proofs: prove, fullprove and verify; a multi-process proving pipeline\n\
(run, demo); an HTTP proving service (serve) with a systemd unit; and libproofpipe, a C library\n\
with rapidsnark's prover interface.")
# Everything the install rules name, whatever their component.
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # proofpipe_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Depends: from the shared libraries the ELF files need (dpkg-shlibdeps).
# The CUDA runtime is linked statically (cuda/CMakeLists.txt,
# CUDA::cudart_static), which opens the driver's libcuda.so.1 only when a
# GPU is used: nothing NVIDIA is a dependency.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A shlibs file for libproofpipe.so.0 and the ldconfig trigger with it.
# (CPack warns that the queue module has no soname: it is a dlopen'ed
# module, not a library to link, so it has none and needs no shlibs line.)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# circom's wasm witness generators run on node (fullprove, run --inputs,
# demo --from-inputs); a key and witnesses need no node. The static
# libproofpipe.a links with pkg-config --static's -dev libraries.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nodejs")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkg-config, libspdlog-dev, libfmt-dev, libgmp-dev")
include(CPack)
