// `proofpipe --version` (commands.hpp): the same version summary.json's
// provenance records.
#include "commands.hpp"
#include "proofpipe/engine/provenance.hpp"

namespace proofpipe::cli {

std::string version_line() { return "proofpipe " + engine::version_string(); }

}  // namespace proofpipe::cli
