// `proofpipe status`: asks a running coordinator over its control socket
// (the run directory's ipc endpoint, private to this user) and prints
// workers, slots, partitions and memory as a table, or the raw JSON.
#include <unistd.h>

#include <cstdio>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_error.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/coordinator/commands.hpp"
#include "proofpipe/ipc/channel.hpp"
#include "proofpipe/ipc/messages.hpp"
#include "run_dir.hpp"

namespace proofpipe::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The run directories under the default base whose coordinator is alive;
// those this user cannot read are not among them (run_dir.hpp).
std::vector<fs::path> live_runs() {
  std::vector<fs::path> runs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(coord::default_run_base(), ec)) {
    if (e.path().filename().string().rfind(coord::kRunDirPrefix, 0) != 0) continue;
    if (coord::inspect_run_dir(e.path()).kind == coord::RunDirKind::kLive) runs.push_back(e.path());
  }
  return runs;
}

std::string size_or_dash(const json& j, const char* key) {
  return j.contains(key) ? format_size(j[key].get<uint64_t>()) : "-";
}

void print_table(const json& s) {
  const auto& parts = s["partitions"];
  std::printf("proofpipe run (pid %d): %.1f s, %d/%d proved, %d in flight, %d pending, %d failed, %.3f s/proof\n",
              s["pid"].get<int>(), s["elapsed_s"].get<double>(), parts["done"].get<int>(), parts["total"].get<int>(),
              parts["in_flight"].get<int>(), parts["pending"].get<int>(), parts["failed"].get<int>(),
              s["s_per_proof"].get<double>());
  std::printf("%-10s %8s %-11s %9s %10s %10s %8s %4s  %s\n", "worker", "pid", "state", "partition", "rss", "peak",
              "restarts", "oom", "backend");
  for (const auto& w : s["workers"]) {
    const int part = w["partition"];
    const std::string backend =
        w.contains("backend") ? ipc::describe(ipc::GpuHello{w["backend"], w.value("devices", std::string()), {}}) : "-";
    std::printf("%-10s %8d %-11s %9s %10s %10s %8d %4d  %s\n", w["worker"].get<std::string>().c_str(),
                w["pid"].get<int>(), w["state"].get<std::string>().c_str(),
                part >= 0 ? std::to_string(part).c_str() : "-", size_or_dash(w, "rss").c_str(),
                size_or_dash(w, "peak").c_str(), w["restarts"].get<int>(), w["oom_kills"].get<int>(), backend.c_str());
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

}  // namespace

int run_status(const StatusArgs& args) {
  fs::path dir = args.run_dir;
  if (dir.empty()) {
    const auto runs = live_runs();
    if (runs.empty())
      return fail(fmt::format("no running proofpipe run under '{}'", coord::default_run_base().string()));
    if (runs.size() > 1) {
      std::string list;
      for (const auto& r : runs) list += " " + r.string();
      return fail("several runs are live, pick one with --run-dir:" + list);
    }
    dir = runs.front();
  }
  // error_code, not exceptions: another user's private run directory is an
  // error line, not an abort.
  std::error_code ec;
  const fs::file_status control = fs::symlink_status(dir / "control", ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return fail(fmt::format("--run-dir '{}': cannot access it: {}", dir.string(), ec.message()));
  }
  if (!fs::is_socket(control)) return fail(fmt::format("'{}' is not a live run directory", dir.string()));
  auto dealer = ipc::Dealer::connect("ipc://" + (dir / "control").string(), fmt::format("client.{}", ::getpid()));
  if (!dealer) return fail(dealer.status().message());
  ipc::MsgHeader h;
  h.type = ipc::MsgType::kStatusRequest;
  h.role = ipc::Role::kClient;
  h.pid = uint32_t(::getpid());
  if (Status st = dealer->send(ipc::Message{h, {}}); !st) return fail(st.message());
  auto reply = dealer->recv(std::chrono::seconds(3));
  if (!reply) return fail(reply.status().message());
  if (!reply->has_value() || (*reply)->header.type != ipc::MsgType::kStatusReply) {
    return fail(fmt::format("the coordinator of '{}' did not answer within 3 s", dir.string()));
  }
  try {
    const json s = json::parse((*reply)->body);
    if (args.json) {
      std::printf("%s\n", s.dump(2).c_str());
    } else {
      print_table(s);
    }
  } catch (const std::exception& e) {
    return fail(fmt::format("malformed status reply from '{}': {}", dir.string(), e.what()));
  }
  return kExitOk;
}

}  // namespace proofpipe::cli
