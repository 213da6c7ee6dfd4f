// The one source of the PostgreSQL queue module (proofpipe_queue_pg.so,
// queue_module.hpp): its only export, which opens a PgQueue for the
// executable that loaded it. The module's other code is PgQueue itself
// (pp_service_pg) and what it uses; its version script keeps every other
// symbol local, so nothing in it can stand in for the executable's own.
#include <exception>

#include <fmt/format.h>

#include "queue_module.hpp"
#include "queue_pg.hpp"

using proofpipe::ErrorCode;
using proofpipe::Status;
using proofpipe::service::JobQueue;
using proofpipe::service::PgQueue;
using proofpipe::service::PgQueueConfig;

extern "C" __attribute__((visibility("default"))) JobQueue* proofpipe_queue_pg_open(const char* build,
                                                                                    const PgQueueConfig* cfg,
                                                                                    Status* error) {
  const std::string own = proofpipe::service::queue_module_build();
  if (own != build) {
    *error = proofpipe::make_error(ErrorCode::kUnavailable,
                                   "--queue: the PostgreSQL queue module is of build '{}', proofpipe of '{}': "
                                   "reinstall proofpipe",
                                   own, build);
    return nullptr;
  }
  // Nothing may unwind into the executable through a C interface.
  try {
    auto q = PgQueue::open(*cfg);
    if (!q) {
      *error = q.status();
      return nullptr;
    }
    return std::move(q).value().release();
  } catch (const std::exception& e) {
    *error = proofpipe::make_error(ErrorCode::kInternal, "--queue: opening the PostgreSQL queue: {}", e.what());
    return nullptr;
  }
}
