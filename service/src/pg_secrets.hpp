// Hiding the password of a PostgreSQL connection string (--queue) in what
// the service says. Apart from queue_open.cpp so the PostgreSQL module
// (queue_pg_conn.cpp) links it without the rest of the service.
#pragma once

#include <string>
#include <string_view>

namespace proofpipe::service {

// `text` with every password that `conninfo` holds replaced by "***": the
// user:PASSWORD@ of a URL, a password=VALUE parameter of a URL or of the
// keyword form (host=db password='a b'), each as written and
// percent-decoded. What every message and log line that may repeat the
// --queue text, or a libpq error about it, goes through.
std::string hide_passwords(std::string text, std::string_view conninfo);

}  // namespace proofpipe::service
