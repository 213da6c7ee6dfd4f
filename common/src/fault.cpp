// Fault points (fault.hpp): parsing PROOFPIPE_FAULTS and acting on a site.
#include "proofpipe/common/fault.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>

#include "proofpipe/common/sizes.hpp"

namespace proofpipe {
namespace detail {
bool g_faults_armed = false;
}  // namespace detail

namespace {
std::atomic<bool> g_hung{false};
}  // namespace

bool fault_hung() { return g_hung.load(std::memory_order_relaxed); }

namespace {

struct ArmedFault {
  FaultSpec spec;
  std::atomic<unsigned> hits{0};
};

std::vector<std::unique_ptr<ArmedFault>>& armed() {
  static std::vector<std::unique_ptr<ArmedFault>> faults;
  return faults;
}

[[noreturn]] void run_oom() {
  // Touch 64 MiB at a time until the cgroup (or the kernel) kills us; keep
  // the blocks reachable so the allocator cannot hand pages back.
  std::vector<char*> blocks;
  for (;;) {
    constexpr size_t kBlock = size_t{64} << 20;
    char* p = static_cast<char*>(std::malloc(kBlock));
    if (p == nullptr) std::abort();
    std::memset(p, 0xA5, kBlock);
    blocks.push_back(p);
  }
}

}  // namespace

Result<std::vector<FaultSpec>> parse_faults(std::string_view text) {
  std::vector<FaultSpec> out;
  for (std::string_view entry : split_list(text)) {
    if (entry.empty()) continue;
    const auto bad = [&](const char* why) {
      return make_error(ErrorCode::kInvalidArgument, "PROOFPIPE_FAULTS entry '{}': {}", entry, why);
    };
    const size_t colon = entry.find(':');
    if (colon == 0 || colon == std::string_view::npos) return bad("expected site:action[@n]");
    FaultSpec spec;
    std::string_view site = entry.substr(0, colon);
    if (const size_t tilde = site.find('~'); tilde != std::string_view::npos) {
      unsigned part = 0;
      if (!parse_uint(site.substr(tilde + 1), &part)) return bad("~partition needs a partition index");
      spec.partition = int(part);
      site = site.substr(0, tilde);
    }
    if (site.empty()) return bad("expected site:action[@n]");
    spec.site = std::string(site);
    std::string_view action = entry.substr(colon + 1);
    if (const size_t at = action.find('@'); at != std::string_view::npos) {
      if (!parse_uint(action.substr(at + 1), &spec.nth) || spec.nth == 0) return bad("@n needs a number >= 1");
      action = action.substr(0, at);
    }
    if (action == "kill") {
      spec.action = FaultAction::kKill;
    } else if (action == "exit") {
      spec.action = FaultAction::kExit;
    } else if (action == "hang") {
      spec.action = FaultAction::kHang;
    } else if (action == "stall") {
      spec.action = FaultAction::kStall;
    } else if (action == "oom") {
      spec.action = FaultAction::kOom;
    } else if (action.starts_with("delay=")) {
      spec.action = FaultAction::kDelay;
      if (!parse_uint(action.substr(6), &spec.delay_ms)) return bad("delay=MS needs milliseconds");
    } else if (action.starts_with("spike=")) {
      spec.action = FaultAction::kSpike;
      if (!parse_uint(action.substr(6), &spec.spike_mb) || spec.spike_mb == 0) return bad("spike=MB needs mebibytes");
    } else if (action == "device_lost") {
      spec.action = FaultAction::kDeviceLost;
    } else if (action == "error") {
      spec.action = FaultAction::kError;
    } else if (action == "corrupt") {
      spec.action = FaultAction::kCorrupt;
    } else {
      return bad("unknown action (kill, exit, hang, stall, oom, delay=MS, spike=MB, device_lost, error, corrupt)");
    }
    out.push_back(std::move(spec));
  }
  return out;
}

std::string format_faults(const std::vector<FaultSpec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    if (!out.empty()) out += ',';
    out += s.site;
    if (s.partition >= 0) out += '~' + std::to_string(s.partition);
    switch (s.action) {
      case FaultAction::kKill: out += ":kill"; break;
      case FaultAction::kExit: out += ":exit"; break;
      case FaultAction::kHang: out += ":hang"; break;
      case FaultAction::kStall: out += ":stall"; break;
      case FaultAction::kOom: out += ":oom"; break;
      case FaultAction::kDelay: out += ":delay=" + std::to_string(s.delay_ms); break;
      case FaultAction::kSpike: out += ":spike=" + std::to_string(s.spike_mb); break;
      case FaultAction::kDeviceLost: out += ":device_lost"; break;
      case FaultAction::kError: out += ":error"; break;
      case FaultAction::kCorrupt: out += ":corrupt"; break;
    }
    if (s.nth != 0) out += '@' + std::to_string(s.nth);
  }
  return out;
}

Status arm_faults_from_env() {
  const char* env = std::getenv("PROOFPIPE_FAULTS");
  if (env == nullptr || *env == '\0') return Status::ok();
  PP_ASSIGN_OR_RETURN(auto specs, parse_faults(env));
  for (auto& s : specs) {
    auto f = std::make_unique<ArmedFault>();
    f->spec = std::move(s);
    armed().push_back(std::move(f));
  }
  detail::g_faults_armed = !armed().empty();
  return Status::ok();
}

Status detail::fault_reached(const char* site, int partition, bool can_return, std::span<std::byte> damageable) {
  Status result = Status::ok();
  for (auto& f : armed()) {
    if (f->spec.site != site) continue;
    if (f->spec.partition >= 0 && f->spec.partition != partition) continue;
    const unsigned hit = f->hits.fetch_add(1) + 1;
    if (f->spec.nth != 0 && hit != f->spec.nth) continue;
    const bool returns = f->spec.action == FaultAction::kDeviceLost || f->spec.action == FaultAction::kError;
    if (returns && !can_return) {
      spdlog::warn("fault point {}: {} cannot fire here (this site returns no error)", site, format_faults({f->spec}));
      continue;
    }
    if (f->spec.action == FaultAction::kCorrupt && damageable.empty()) {
      spdlog::warn("fault point {}: {} cannot fire here (this site holds no bytes)", site, format_faults({f->spec}));
      continue;
    }
    if (f->spec.action != FaultAction::kDelay && f->spec.action != FaultAction::kSpike) {
      // Flush first: the log line is how a test learns the fault fired.
      spdlog::warn("fault point {} hit #{}: firing", site, hit);
      spdlog::default_logger()->flush();
    }
    switch (f->spec.action) {
      case FaultAction::kKill:
        ::kill(::getpid(), SIGKILL);
        for (;;) ::pause();
      case FaultAction::kExit: ::_exit(kFaultExitCode);
      case FaultAction::kHang:
        g_hung = true;
        for (;;) ::pause();
      case FaultAction::kStall:  // this thread only; fault_hung() stays false
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
      case FaultAction::kOom: run_oom();
      case FaultAction::kDelay: std::this_thread::sleep_for(std::chrono::milliseconds(f->spec.delay_ms)); break;
      case FaultAction::kSpike: {
        // mmap/munmap, not malloc/free: the pages really come and go.
        const size_t len = size_t(f->spec.spike_mb) << 20;
        void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
          std::memset(p, 0x5A, len);
          ::munmap(p, len);
        }
        spdlog::info("fault point {}: {} MiB spike allocated, touched and freed", site, f->spec.spike_mb);
        break;
      }
      case FaultAction::kDeviceLost:  // the first entry that fires decides
        if (result) result = make_error(ErrorCode::kDeviceLost, "fault point {}: injected device error", site);
        break;
      case FaultAction::kError:
        if (result) result = make_error(ErrorCode::kInternal, "fault point {}: injected error", site);
        break;
      case FaultAction::kCorrupt: damageable[damageable.size() / 2] ^= std::byte{1}; break;
    }
  }
  return result;
}

}  // namespace proofpipe
