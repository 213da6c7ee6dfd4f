// The HTTP side of `proofpipe submit`, `jobs` and `cancel` (docs/api.md):
// which server (--server, else $PROOFPIPE_SERVER, else
// http://127.0.0.1:7300), which token (--token-file, else
// $PROOFPIPE_TOKEN_FILE), and requests whose failures are one line naming
// the server and what it said.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "proofpipe/common/status.hpp"
#include "proofpipe/service/job_queue.hpp"

namespace httplib {
class Client;
struct MultipartFormData;
}  // namespace httplib

namespace proofpipe::service {

inline constexpr const char* kDefaultServer = "http://127.0.0.1:7300";

// An answer with a 2xx status; anything else is an error.
struct Answer {
  int status = 0;
  std::string body;
};

class ApiClient {
 public:
  // Resolves the server and reads the token file; a malformed URL or a bad
  // token file is one error line.
  static Result<std::unique_ptr<ApiClient>> connect(const cli::ClientArgs& args);
  ~ApiClient();

  const std::string& server() const { return server_; }

  Result<Answer> get(const std::string& path);
  Result<Answer> del(const std::string& path);
  Result<Answer> post_json(const std::string& path, const nlohmann::json& body);
  Result<Answer> post_form(const std::string& path, const std::vector<httplib::MultipartFormData>& items);

  // The 2xx body as JSON (kBadFormat naming the server if it is not).
  Result<nlohmann::json> json_of(const Answer& a) const;
  Result<Job> job_of(const Answer& a) const;
  Result<Job> parse_job(const nlohmann::json& j) const;

 private:
  ApiClient(std::string server, std::unique_ptr<httplib::Client> client);
  template <class Call>
  Result<Answer> call(std::string_view what, const std::string& path, Call&& c);

  std::string server_;
  std::unique_ptr<httplib::Client> client_;
};

// A path segment with everything but A-Z a-z 0-9 - . _ ~ percent-encoded.
std::string url_segment(std::string_view s);

// 3725.4 -> "1:02:05" (hours not capped).
std::string format_hms(double seconds);

// The --wait progress text of a job `elapsed_s` after waiting began, when
// `finished_at_start` partitions had already ended: partitions done/total,
// failed, elapsed and ETA (from the partitions that ended while waiting;
// "ETA unknown" until one has). With `bar`, a [####....] bar first.
std::string progress_text(const Job& job, double elapsed_s, uint32_t finished_at_start, bool bar);

// The exit code of `submit --wait` for a job that ended: 0 every partition
// done, 3 (kExitPartial) otherwise.
int exit_code_of(const Job& job);

}  // namespace proofpipe::service
