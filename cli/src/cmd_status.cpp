// `proofpipe status`: asks a running coordinator over its control socket
// (the run directory's ipc endpoint, private to this user) and prints
// workers, slots, partitions and memory as a table, or the raw JSON.
#include <unistd.h>

#include <cstdio>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_error.hpp"
#include "commands.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/engine/run_dir.hpp"
#include "proofpipe/engine/timings.hpp"
#include "proofpipe/formats/bounded_json.hpp"
#include "proofpipe/ipc/channel.hpp"
#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::cli {
namespace {

namespace fs = std::filesystem;
using engine::hms;
using nlohmann::json;

// The run directories under the default base whose coordinator is alive;
// those this user cannot read are not among them (run_dir.hpp).
std::vector<fs::path> live_runs() {
  std::vector<fs::path> runs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(engine::default_run_base(), ec)) {
    if (e.path().filename().string().rfind(engine::kRunDirPrefix, 0) != 0) continue;
    if (engine::inspect_run_dir(e.path()).kind == engine::RunDirKind::kLive) runs.push_back(e.path());
  }
  return runs;
}

std::string eta_text(const json& s);

std::string size_or_dash(const json& j, const char* key) {
  return j.contains(key) ? format_size(j[key].get<uint64_t>()) : "-";
}

void print_table(const json& s) {
  const auto& parts = s["partitions"];
  // A serve waits between jobs: its line says so, shows the busy time, and
  // its s/proof is over that (the snapshot's); a run is busy throughout.
  if (s.value("mode", std::string("run")) == "serve") {
    std::printf(
        "proofpipe serve (pid %d): up %s, busy %s, %d/%d proved, %d in flight, %d pending, %d failed, "
        "%.3f s/proof (busy time)\n",
        s["pid"].get<int>(), hms(s["elapsed_s"].get<double>()).c_str(), hms(s.value("busy_s", 0.0)).c_str(),
        parts["done"].get<int>(), parts["total"].get<int>(), parts["in_flight"].get<int>(), parts["pending"].get<int>(),
        parts["failed"].get<int>(), s["s_per_proof"].get<double>());
  } else {
    std::printf(
        "proofpipe run (pid %d): elapsed %s, ETA %s, %d/%d proved, %d in flight, %d pending, %d failed, "
        "%.3f s/proof\n",
        s["pid"].get<int>(), hms(s["elapsed_s"].get<double>()).c_str(), eta_text(s).c_str(), parts["done"].get<int>(),
        parts["total"].get<int>(), parts["in_flight"].get<int>(), parts["pending"].get<int>(),
        parts["failed"].get<int>(), s["s_per_proof"].get<double>());
  }
  std::printf("%-10s %8s %-11s %-16s %10s %10s %8s %4s  %s\n", "worker", "pid", "state", "partition", "rss", "peak",
              "restarts", "oom", "backend");
  for (const auto& w : s["workers"]) {
    const std::string part = w.value("partition_name", std::string());
    const std::string backend =
        w.contains("backend") ? ipc::describe(ipc::GpuHello{w["backend"], w.value("devices", std::string()), {}}) : "-";
    std::printf("%-10s %8d %-11s %-16s %10s %10s %8d %4d  %s\n", w["worker"].get<std::string>().c_str(),
                w["pid"].get<int>(), w["state"].get<std::string>().c_str(), part.empty() ? "-" : part.c_str(),
                size_or_dash(w, "rss").c_str(), size_or_dash(w, "peak").c_str(), w["restarts"].get<int>(),
                w["oom_kills"].get<int>(), backend.c_str());
  }
  const auto& sl = s["slots"];
  std::printf("slots: %d x %s: free %d, writing %d, ready %d, consuming %d, quarantined %d\n",
              s["slot_count"].get<int>(), format_size(s["slot_bytes"].get<uint64_t>()).c_str(), sl.value("free", 0),
              sl.value("writing", 0), sl.value("ready", 0), sl.value("consuming", 0), sl.value("quarantined", 0));
  const auto& m = s["memory"];
  const uint64_t budget = m["mem_budget"];
  std::printf("memory: %s resident now, %s at most, ring %s%s\n", format_size(m["total_rss"].get<uint64_t>()).c_str(),
              format_size(m["max_total_rss"].get<uint64_t>()).c_str(),
              format_size(s["ring_bytes"].get<uint64_t>()).c_str(),
              budget ? fmt::format(" (budget {})", format_size(budget)).c_str() : "");
}

// One live run's status JSON, asked over its control socket.
Result<json> query(const fs::path& dir) {
  // error_code, not exceptions: another user's private run directory is an
  // error line, not an abort.
  std::error_code ec;
  const fs::file_status control = fs::symlink_status(dir / "control", ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return make_error(ErrorCode::kIo, "--run-dir '{}': cannot access it: {}", dir.string(), ec.message());
  }
  if (!fs::is_socket(control))
    return make_error(ErrorCode::kNotFound, "'{}' is not a live run directory", dir.string());
  PP_ASSIGN_OR_RETURN(
      auto dealer, ipc::Dealer::connect("ipc://" + (dir / "control").string(), fmt::format("client.{}", ::getpid())));
  ipc::MsgHeader h;
  h.type = ipc::MsgType::kStatusRequest;
  h.role = ipc::Role::kClient;
  h.pid = uint32_t(::getpid());
  PP_RETURN_IF_ERROR(dealer.send(ipc::Message{h, {}}));
  PP_ASSIGN_OR_RETURN(auto reply, dealer.recv(std::chrono::seconds(3)));
  if (!reply.has_value() || reply->header.type != ipc::MsgType::kStatusReply) {
    return make_error(ErrorCode::kDeadlineExceeded, "the coordinator of '{}' did not answer within 3 s", dir.string());
  }
  auto parsed = formats::parse_json_bounded(reply->body);
  json s = parsed ? std::move(parsed).value() : json();
  if (!s.is_object()) return make_error(ErrorCode::kBadFormat, "malformed status reply from '{}'", dir.string());
  s["run_dir"] = dir.string();
  return s;
}

std::string eta_text(const json& s) {
  return s.contains("eta_s") && s["eta_s"].is_number() ? hms(s["eta_s"].get<double>()) : "unknown";
}

// Several live runs: one row each.
void print_runs(const std::vector<json>& runs) {
  std::printf("%-8s %-20s %-12s %-9s %-9s %s\n", "pid", "started", "progress", "elapsed", "ETA", "zkey / run dir");
  for (const json& s : runs) {
    const auto& parts = s["partitions"];
    std::printf("%-8d %-20s %-12s %-9s %-9s %s\n    %s\n", s["pid"].get<int>(),
                s.value("started", std::string("?")).substr(0, 19).c_str(),
                fmt::format("{}/{}", parts["done"].get<int>(), parts["total"].get<int>()).c_str(),
                hms(s["elapsed_s"].get<double>()).c_str(), eta_text(s).c_str(),
                s.value("zkey", std::string("?")).c_str(), s["run_dir"].get<std::string>().c_str());
  }
}

}  // namespace

int cmd_status(const StatusArgs& args) {
  std::vector<fs::path> dirs;
  if (!args.run_dir.empty()) {
    dirs.push_back(args.run_dir);
  } else {
    dirs = live_runs();
    if (dirs.empty())
      return fail(fmt::format("no running proofpipe run under '{}'", engine::default_run_base().string()));
  }
  std::vector<json> replies;
  for (const fs::path& dir : dirs) {
    auto s = query(dir);
    if (!s) {
      if (dirs.size() == 1) return fail(s.status());
      std::fprintf(stderr, "proofpipe: warning: %s\n", s.status().message().c_str());  // it may just have ended
      continue;
    }
    replies.push_back(std::move(*s));
  }
  if (args.json) {
    std::printf("%s\n", (replies.size() == 1 ? replies.front() : json(replies)).dump(2).c_str());
  } else if (replies.size() == 1) {
    print_table(replies.front());
  } else {
    print_runs(replies);
  }
  return kExitOk;
}

}  // namespace proofpipe::cli
