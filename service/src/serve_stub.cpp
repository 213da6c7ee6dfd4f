// TEMPORARY: run_serve until the service itself lands (its own branch); lets
// the `proofpipe` executable link the clients and the API now.
#include "cli_error.hpp"
#include "proofpipe/service/commands.hpp"

namespace proofpipe::cli {

int run_serve(const ServeArgs&) { return fail("proofpipe serve: not yet"); }

}  // namespace proofpipe::cli
