// `proofpipe serve` (docs/service.md): the service itself lives in service/
// (serve.hpp); this is its command's exit code.
#include "commands.hpp"

#include "cli_error.hpp"
#include "proofpipe/common/logging.hpp"
#include "proofpipe/service/serve.hpp"

namespace proofpipe::cli {

int cmd_serve(const ServeArgs& args) {
  // A service's log is its operator's record: info by default.
  log_verbosely();
  const Status st = service::serve(args);
  return st ? kExitOk : fail(st);
}

}  // namespace proofpipe::cli
