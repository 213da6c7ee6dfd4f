// `proofpipe submit` (docs/api.md): sends witnesses to a running
// `proofpipe serve` — the .wtns files themselves (multipart), or with
// --paths their paths on the server; or with --inputs circom input JSON
// files (multipart), whose witnesses the service generates — and prints
// the job. With --wait it
// polls the job until it ends (a progress bar on a terminal, a plain line
// every 30 s and on every change otherwise), then writes every proved
// partition into --out as <name>.proof.json and <name>.public.json.
// The server is not trusted: a partition name that is not a plain stem
// (is_partition_stem) writes nothing, so every file lands directly in --out.
// Exit: 0 all proved, 3 some failed or cancelled, 2 an error.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "cli_error.hpp"
#include "client.hpp"
#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/formats/bounded_json.hpp"
#include "proofpipe/service/job_json.hpp"
#include "proofpipe/witness_gen/resolve.hpp"

namespace proofpipe::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using service::ApiClient;
using service::Job;
using service::JobState;

// Without a change, a plain (non-terminal) line this often.
constexpr double kPlainLineEveryS = 30;
// Polls start fast (short jobs end fast) and slow down to this.
constexpr double kFirstPollS = 0.2, kMaxPollS = 2.0;
// A server that restarts (kill -9, an upgrade) is waited for this long.
constexpr double kUnreachableForS = 60;

// The partition name the service gives a witness: its file name's stem.
std::string stem_of(const std::string& path) { return fs::path(path).stem().string(); }

// The client names the file itself, so a link is followed; a FIFO is
// refused by the open, not waited on (read_regular_file).
Result<std::string> read_upload(const std::string& path, const char* what) {
  return read_regular_file(path, std::numeric_limits<uint64_t>::max(), what);
}

// What the job sends: the witness files, or the input files of --inputs
// (a folder gives its *.json files, sorted by name, as `run --inputs`).
Result<std::vector<std::string>> files_to_send(const SubmitArgs& args) {
  if (args.inputs.empty()) {
    if (args.witnesses.empty())
      return make_error(ErrorCode::kInvalidArgument, "give witness files (.wtns), or --inputs with input JSON files");
    return args.witnesses;
  }
  if (!args.witnesses.empty())
    return make_error(ErrorCode::kInvalidArgument, "give witness files or --inputs, not both (a job takes one kind)");
  if (!args.upload)
    return make_error(ErrorCode::kInvalidArgument, "--paths sends witness paths; --inputs are always uploaded");
  PP_ASSIGN_OR_RETURN(const auto paths, witness_gen::list_inputs(args.inputs));
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.string());
  return out;
}

fs::path proof_path(const fs::path& out, const std::string& name) { return out / (name + ".proof.json"); }
fs::path public_path(const fs::path& out, const std::string& name) { return out / (name + ".public.json"); }

// Existing outputs are never replaced: refused up front, and again just
// before each pair is written.
Status refuse_existing(const fs::path& out, const std::string& name) {
  for (const auto& p : {proof_path(out, name), public_path(out, name)}) {
    std::error_code ec;
    if (fs::symlink_status(p, ec).type() != fs::file_type::not_found)
      return make_error(ErrorCode::kInvalidArgument, "'{}' exists: not overwritten (remove it or choose another --out)",
                        p.string());
  }
  return Status::ok();
}

// GET the proof and write the pair (both or neither: safe_file.hpp). The
// name must be a stem: then both files are entries of `out` itself, created
// exclusively there and never through a link.
Status fetch_proof(ApiClient& c, const std::string& id, const std::string& name, const fs::path& out) {
  if (!service::is_partition_stem(name))
    return make_error(ErrorCode::kBadFormat,
                      "server {}: job '{}' names a partition '{}', which is not a file name stem (A-Z a-z 0-9 . _ -, "
                      "at most 128): nothing written for it",
                      c.server(), service::printable(id), service::printable(name));
  PP_ASSIGN_OR_RETURN(const auto a,
                      c.get("/v1/jobs/" + service::url_segment(id) + "/proofs/" + service::url_segment(name)));
  // ordered_json: snarkjs's key order, so the files are the stored ones byte for byte.
  auto parsed = formats::parse_ordered_json_bounded(a.body);  // depth-capped: the server is not trusted
  const auto j = parsed ? std::move(parsed).value() : nlohmann::ordered_json();
  if (!j.is_object() || !j.contains("proof") || !j.contains("public"))
    return make_error(ErrorCode::kBadFormat, "server {}: proof '{}' of job '{}': no proof and public in the answer",
                      c.server(), name, service::printable(id));
  PP_RETURN_IF_ERROR(refuse_existing(out, name));
  // As snarkjs writes them: JSON.stringify(x, null, 1).
  const std::string proof = j["proof"].dump(1), pub = j["public"].dump(1);
  const TextFile files[] = {{proof_path(out, name), proof, "proof"}, {public_path(out, name), pub, "public"}};
  return write_together(files);
}

bool ended(const Job& j) {
  return j.state == JobState::kDone || j.state == JobState::kFailed || j.state == JobState::kCancelled;
}

// Polls the job until it ends, showing progress on stderr.
Result<Job> wait_for(ApiClient& c, Job job) {
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  const auto t0 = std::chrono::steady_clock::now();
  const uint32_t finished_at_start = job.done + job.failed + job.cancelled;
  const std::string path = "/v1/jobs/" + service::url_segment(job.id);
  std::string last_shown;  // the counts of the last plain line
  double last_line_s = -kPlainLineEveryS, delay_s = kFirstPollS, unreachable_since = -1;
  while (true) {
    const double now = seconds_since(t0);
    const std::string counts = fmt::format("{} {} {} {}", int(job.state), job.done, job.failed, job.cancelled);
    if (tty) {
      // \033[K clears what a longer earlier line left at the end.
      std::fprintf(stderr, "\r%s\033[K", service::progress_text(job, now, finished_at_start, true).c_str());
      std::fflush(stderr);
    } else if (counts != last_shown || now - last_line_s >= kPlainLineEveryS) {
      std::fprintf(stderr, "proofpipe: %s\n", service::progress_text(job, now, finished_at_start, false).c_str());
      last_line_s = now;
    }
    if (counts != last_shown) delay_s = kFirstPollS;
    last_shown = counts;
    if (ended(job)) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
    delay_s = std::min(kMaxPollS, delay_s * 1.5);
    auto a = c.get(path);
    if (!a && a.status().code() == ErrorCode::kIo) {
      if (unreachable_since < 0) {
        unreachable_since = seconds_since(t0);
        std::fprintf(stderr, "%sproofpipe: %s; retrying for up to %.0f s\n", tty ? "\n" : "",
                     a.status().message().c_str(), kUnreachableForS);
      }
      if (seconds_since(t0) - unreachable_since < kUnreachableForS) continue;
    }
    if (tty && !a) std::fprintf(stderr, "\n");
    if (!a) return a.status();
    unreachable_since = -1;
    PP_ASSIGN_OR_RETURN(job, c.job_of(*a));
  }
  if (tty) std::fprintf(stderr, "\n");
  return job;
}

}  // namespace

int cmd_submit(const SubmitArgs& args) {
  const auto files = files_to_send(args);
  if (!files) return fail(files.status());
  const bool inputs = !args.inputs.empty();
  // Names first: two files with one stem would be one partition name twice.
  std::map<std::string, std::string> by_name;
  for (const auto& w : *files) {
    const auto [it, fresh] = by_name.emplace(stem_of(w), w);
    if (!fresh)
      return fail(fmt::format("{} '{}' and '{}' have the same name '{}' (a job's partition names differ)",
                              inputs ? "inputs" : "witnesses", it->second, w, it->first));
  }
  const fs::path out = args.out.empty() ? fs::path(".") : fs::path(args.out);
  if (args.wait) {
    std::error_code ec;
    fs::create_directories(out, ec);
    if (!fs::is_directory(out)) return fail(fmt::format("--out '{}' is not a folder that can be made", out.string()));
    for (const auto& [name, w] : by_name) {
      if (const Status st = refuse_existing(out, name); !st) return fail(st);
    }
  }
  auto client = ApiClient::connect(args);
  if (!client) return fail(client.status());
  ApiClient& c = **client;

  Result<service::Answer> answer = Status(ErrorCode::kInternal, "not sent");
  if (args.upload) {
    httplib::MultipartFormDataItems items = {{"key", args.key, "", ""},
                                             {"priority", std::to_string(args.priority), "", ""}};
    if (!args.id.empty()) items.push_back({"id", args.id, "", ""});
    for (const auto& w : *files) {
      auto bytes = read_upload(w, inputs ? "input" : "witness");
      if (!bytes) return fail(bytes.status());
      items.push_back({inputs ? "input" : "witness", std::move(*bytes), fs::path(w).filename().string(),
                       inputs ? "application/json" : "application/octet-stream"});
    }
    answer = c.post_form("/v1/jobs", items);
  } else {
    json body = {{"key", args.key}, {"priority", args.priority}, {"witnesses", args.witnesses}};
    if (!args.id.empty()) body["id"] = args.id;
    answer = c.post_json("/v1/jobs", body);
  }
  if (!answer) return fail(answer.status());
  auto job = c.job_of(*answer);
  if (!job) return fail(job.status());
  std::printf("job %s: %s (%s, %u/%u done)\n", service::printable(job->id).c_str(),
              answer->status == 201 ? "submitted" : "already submitted with the same content",
              service::job_state_name(job->state), job->done, job->total);
  std::fflush(stdout);
  if (!args.wait) return kExitOk;

  auto final_job = wait_for(c, std::move(*job));
  if (!final_job) return fail(final_job.status());
  // Every name is checked before any file is written.
  for (const auto& p : final_job->partitions) {
    if (!service::is_partition_stem(p.name))
      return fail(
          fmt::format("server {}: job '{}' names a partition '{}', which is not a file name stem (A-Z a-z 0-9 "
                      ". _ -, at most 128): no proofs written",
                      c.server(), service::printable(final_job->id), service::printable(p.name)));
  }
  size_t written = 0;
  for (const auto& p : final_job->partitions) {
    if (p.status == service::PartStatus::kDone) {
      if (const Status st = fetch_proof(c, final_job->id, p.name, out); !st) return fail(st);
      ++written;
    } else {
      std::fprintf(stderr, "proofpipe: partition %s %s%s\n", p.name.c_str(), service::part_status_name(p.status),
                   p.last_error.empty() ? "" : (": " + service::printable(p.last_error)).c_str());
    }
  }
  std::printf("job %s: %s, %u/%u done; %zu proofs written to %s\n", service::printable(final_job->id).c_str(),
              service::job_state_name(final_job->state), final_job->done, final_job->total, written,
              out.string().c_str());
  return service::exit_code_of(*final_job);
}

}  // namespace proofpipe::cli
