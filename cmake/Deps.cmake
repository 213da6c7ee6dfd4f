# Third-party dependencies, all from Debian packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(GMP REQUIRED IMPORTED_TARGET gmp gmpxx)
if(PP_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(PP_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
# Used by more than one folder (imported targets are directory-scoped, so
# they are found once here): the CLI parser, JSON, and ZeroMQ's C++ binding.
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(cppzmq REQUIRED)
# The service (service/): its job journal and its HTTP/JSON API.
find_package(SQLite3 REQUIRED)
# The API server is Boost.Beast over Boost.Asio (header-only in Boost 1.74,
# libboost-dev); the HTTP clients still use cpp-httplib.
find_package(Boost 1.74 REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET libpqxx)  # the service's shared queue (docs/scale-out.md)
