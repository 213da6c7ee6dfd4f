// The HTTP side of `proofpipe submit`, `jobs` and `cancel` (docs/api.md):
// which server (--server, else $PROOFPIPE_SERVER, else
// http://127.0.0.1:7300), which token (--token-file, else
// $PROOFPIPE_TOKEN_FILE), and requests whose failures are one line naming
// the server and what it said. The server is not trusted: every answer is
// capped at kMaxAnswerBytes, every request ends within --timeout, and what
// the server says is shown through printable().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "proofpipe/common/status.hpp"
#include "proofpipe/service/job_queue.hpp"

namespace httplib {
struct MultipartFormData;
}  // namespace httplib

namespace proofpipe::service {

inline constexpr const char* kDefaultServer = "http://127.0.0.1:7300";
// More than any real job list or proof; an answer over it is an error, read
// no further (a hostile or broken server cannot fill the client's memory).
inline constexpr uint64_t kMaxAnswerBytes = uint64_t(64) << 20;

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
  ApiClient(std::string server, std::string host, std::string port, std::string token, double timeout_s);
  // One request, connect to last byte within timeout_s_, its answer at
  // most kMaxAnswerBytes.
  Result<Answer> call(std::string_view method, const std::string& path, std::string body,
                      const std::string& content_type);

  std::string server_;
  std::string host_, port_;
  std::string token_;  // empty: no Authorization header
  double timeout_s_;
};

// Text from the server made safe for a terminal: valid UTF-8 without control
// characters passes; control characters (C0, DEL, C1) and bytes that are not
// valid UTF-8 become \xNN (\x1b, \x0d, \x9b, ...).
std::string printable(std::string_view s);

// Whether a partition name from a server may name files in --out: 1 to 128
// of A-Z a-z 0-9 . _ -, and not "." or "..".
bool is_partition_stem(std::string_view name);

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
