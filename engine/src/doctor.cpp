// `proofpipe doctor`'s checks (doctor.hpp).
#include "doctor_env.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/cpu/features.hpp"
#include "proofpipe/shm/segment.hpp"

namespace proofpipe::engine {
namespace {

// A descriptor budget a run stays far below (ZeroMQ sockets, the ring, the
// key and witness files, a few per worker): systemd's default soft limit
// of 1024 is enough, anything lower is unusual and worth a look.
constexpr uint64_t kNofileWant = 1024;
// Docker's default /dev/shm (64 MiB) or less: too small for any real key's ring.
constexpr uint64_t kSmallShm = 64ull << 20;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// "Name:   123 kB" lines of /proc/meminfo: the number (kB lines in bytes).
std::optional<uint64_t> meminfo_value(const std::string& meminfo, const std::string& name) {
  std::istringstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) != 0) continue;
    std::istringstream l(line.substr(name.size() + 1));
    uint64_t v = 0;
    std::string unit;
    if (!(l >> v)) return std::nullopt;
    l >> unit;
    return unit == "kB" ? v << 10 : v;
  }
  return std::nullopt;
}

bool has_flag(const std::string& flags, const std::string& flag) {
  std::istringstream in(flags);
  for (std::string w; in >> w;) {
    if (w == flag) return true;
  }
  return false;
}

std::string limit_text(uint64_t v) { return v == UINT64_MAX ? "unlimited" : std::to_string(v); }
std::string limit_size(uint64_t v) { return v == UINT64_MAX ? "unlimited" : format_size(v); }

CheckLine cgroup_check(const DoctorEnv& env) {
  const CgroupProbe p = probe_cgroups(env.cgroup);
  const std::string fallback =
      "per-worker caps fall back to RLIMIT_AS on synthesis workers, OOM kills cannot be "
      "told from other kills, --mem-max is refused";
  if (p.version == CgroupVersion::kUnavailable) {
    return {"cgroup", CheckLevel::kWarn, fmt::format("no memory cgroup ({}): {}", p.why, fallback),
            "mount the memory controller (cgroup v2 with memory enabled, or v1's memory hierarchy)"};
  }
  if (p.version == CgroupVersion::kV1) {
    if (!p.writable) {
      return {
          "cgroup", CheckLevel::kWarn,
          fmt::format("cgroup v1: memory controller at {}, not writable by this user: {}", p.own.string(), fallback),
          "run proofpipe as root, or in a memory cgroup this user may write"};
    }
    return {"cgroup", CheckLevel::kOk,
            fmt::format("cgroup v1: memory controller at {}, writable: per-worker caps, OOM classification and "
                        "--mem-max work",
                        p.own.string()),
            ""};
  }
  if (!p.memory) {
    return {"cgroup", CheckLevel::kWarn, fmt::format("cgroup v2: {}: {}", p.why, fallback),
            "start proofpipe in a unit with Delegate=yes (packaging/proofpipe.service), which hands it the memory "
            "controller"};
  }
  if (!p.delegated) {
    return {"cgroup", CheckLevel::kWarn, fmt::format("cgroup v2: {}: {}", p.why, fallback),
            "run under systemd with Delegate=yes (packaging/proofpipe.service), or `systemd-run --scope -p "
            "Delegate=yes proofpipe run ...`; in a container, give it its own cgroup namespace"};
  }
  if (!p.writable) {
    return {"cgroup", CheckLevel::kWarn, fmt::format("cgroup v2: {}: {}", p.why, fallback),
            "run proofpipe as the user the unit delegates its cgroup to"};
  }
  return {
      "cgroup", CheckLevel::kOk,
      fmt::format("cgroup v2: memory controller delegated at {}; peaks {}", p.own.string(),
                  p.has_peak ? "from memory.peak" : "sampled from memory.current (no memory.peak before Linux 5.19)"),
      ""};
}

CheckLine shm_check(const DoctorEnv& env, const DoctorRing& ring) {
  if (!env.shm_total || !env.shm_free) {
    return {"shm", CheckLevel::kFail, fmt::format("{} is not there: the ring cannot be created", shm::kShmMount),
            "mount a tmpfs on /dev/shm"};
  }
  const std::string have =
      fmt::format("{}: {} free of {}", shm::kShmMount, format_size(*env.shm_free), format_size(*env.shm_total));
  if (ring.slots == 0) {
    if (*env.shm_total <= kSmallShm) {
      return {"shm", CheckLevel::kWarn, have + " (give --zkey to compare with a key's ring)",
              "enlarge it: mount -o remount,size=<ring + margin> /dev/shm (docker: --shm-size)"};
    }
    return {"shm", CheckLevel::kOk, have + " (give --zkey to compare with a key's ring)", ""};
  }
  const std::string need = fmt::format("the ring for {} needs {} (K={} slots of {})", ring.key,
                                       format_size(ring.bytes()), ring.slots, format_size(ring.slot_bytes));
  if (*env.shm_free < ring.bytes()) {
    return {"shm", CheckLevel::kFail, fmt::format("{}; {}", have, need),
            fmt::format("free or enlarge /dev/shm to at least {}: mount -o remount,size=... /dev/shm (docker: "
                        "--shm-size), or fewer slots (--slots)",
                        format_size(ring.bytes() + (*env.shm_total - *env.shm_free)))};
  }
  return {"shm", CheckLevel::kOk, fmt::format("{}; {}", have, need), ""};
}

CheckLine hugepages_check(const DoctorEnv& env) {
  const auto total = meminfo_value(env.meminfo, "HugePages_Total");
  const auto size = meminfo_value(env.meminfo, "Hugepagesize");
  const std::string thp = trim(env.thp);
  return {"hugepages", CheckLevel::kInfo,
          fmt::format("{} reserved huge pages of {}; transparent huge pages: {} (the ring and workers use regular "
                      "pages: nothing needed)",
                      total ? std::to_string(*total) : "?", size ? format_size(*size) : "?", thp.empty() ? "?" : thp),
          ""};
}

CheckLine overcommit_check(const DoctorEnv& env, const DoctorRing& ring) {
  const std::string mode = trim(env.overcommit_memory);
  if (mode == "2") {
    const auto limit = meminfo_value(env.meminfo, "CommitLimit");
    const auto committed = meminfo_value(env.meminfo, "Committed_AS");
    const uint64_t room = limit && committed && *limit > *committed ? *limit - *committed : 0;
    const std::string detail = fmt::format(
        "vm.overcommit_memory=2 (strict, ratio {}): CommitLimit {}, committed {}, room {}", trim(env.overcommit_ratio),
        limit ? format_size(*limit) : "?", committed ? format_size(*committed) : "?", format_size(room));
    if (ring.slots != 0 && room < ring.bytes()) {
      return {"overcommit", CheckLevel::kFail,
              detail + fmt::format(": less than the ring's {}", format_size(ring.bytes())),
              "vm.overcommit_memory=0, or a larger vm.overcommit_ratio"};
    }
    return {"overcommit", CheckLevel::kWarn,
            detail +
                ": every mapping counts (the ring, the key's sections), so allocations fail before memory is "
                "used up",
            "vm.overcommit_memory=0 (heuristic), or a larger vm.overcommit_ratio"};
  }
  if (mode == "0" || mode == "1") {
    return {"overcommit", CheckLevel::kOk,
            fmt::format("vm.overcommit_memory={} ({})", mode, mode == "0" ? "heuristic" : "always"), ""};
  }
  return {"overcommit", CheckLevel::kInfo, "vm.overcommit_memory unreadable", ""};
}

CheckLine nofile_check(const DoctorEnv& env) {
  const std::string detail =
      fmt::format("RLIMIT_NOFILE soft {}, hard {}", limit_text(env.nofile.soft), limit_text(env.nofile.hard));
  if (env.nofile.soft < kNofileWant) {
    return {"nofile", CheckLevel::kWarn, detail + fmt::format(": below {}", kNofileWant),
            fmt::format("ulimit -n {} (systemd: LimitNOFILE=)", kNofileWant * 64)};
  }
  return {"nofile", CheckLevel::kOk, detail, ""};
}

bool cuda_usable(const DoctorEnv& env) { return env.cuda.built && !env.cuda.devices.empty(); }

CheckLine memlock_check(const DoctorEnv& env, const DoctorRing& ring) {
  std::string detail =
      fmt::format("RLIMIT_MEMLOCK soft {}, hard {}", limit_size(env.memlock.soft), limit_size(env.memlock.hard));
  if (!cuda_usable(env)) return {"memlock", CheckLevel::kInfo, detail + " (only the CUDA intake pins the ring)", ""};
  if (env.root) return {"memlock", CheckLevel::kOk, detail + " (root: CAP_IPC_LOCK, not bound by it)", ""};
  if (ring.slots != 0 && env.memlock.soft < ring.bytes()) {
    return {"memlock", CheckLevel::kWarn,
            detail + fmt::format(": below the ring's {}, so the CUDA intake cannot pin it (pageable copies, slower)",
                                 format_size(ring.bytes())),
            "ulimit -l unlimited (systemd: LimitMEMLOCK=infinity)"};
  }
  return {"memlock", CheckLevel::kOk, detail, ""};
}

std::string cuda_version(int v) { return v == 0 ? "none" : fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

std::vector<CheckLine> cuda_checks(const DoctorEnv& env) {
  const backends::CudaInventory& c = env.cuda;
  if (!cuda_usable(env)) {
    return {{"cuda", CheckLevel::kInfo,
             fmt::format("no CUDA device: proving runs on the CPU backend ({})",
                         c.no_device_reason.empty() ? "none found" : c.no_device_reason),
             ""}};
  }
  std::vector<CheckLine> out;
  out.push_back(
      {"cuda", CheckLevel::kOk,
       fmt::format("CUDA driver {}, runtime {}", cuda_version(c.driver_version), cuda_version(c.runtime_version)), ""});
  for (const auto& d : c.devices) {
    out.push_back({"cuda", CheckLevel::kOk,
                   fmt::format("device {} {}: {} free of {}", d.index, d.name, format_size(d.free_bytes),
                               format_size(d.total_bytes)),
                   ""});
  }
  return out;
}

CheckLine cpu_check(const DoctorEnv& env) {
  const bool adx = has_flag(env.cpu_flags, "adx"), bmi2 = has_flag(env.cpu_flags, "bmi2");
  const std::string have = fmt::format("CPU: ADX {}, BMI2 {}", adx ? "yes" : "no", bmi2 ? "yes" : "no");
  if (env.built_fast_path && !(adx && bmi2)) {
    return {"cpu", CheckLevel::kFail,
            have + ": this build requires mulx/adcx (compiled with -DPP_NATIVE=ON elsewhere): it refuses to start",
            "use the default (portable) build, which chooses the fast path at run time"};
  }
  if (!adx || !bmi2) {
    return {"cpu", CheckLevel::kWarn, have + ": the field kernels' fast path (mulx/adcx) is not available (slower)",
            "a CPU with ADX and BMI2 (Intel Broadwell, AMD Zen and later)"};
  }
  return {"cpu", CheckLevel::kOk,
          have + (env.built_fast_path ? ": the field kernels' fast path (mulx/adcx) is used"
                                      : ": the field kernels' fast path (mulx/adcx) is used (chosen at run time)"),
          ""};
}

}  // namespace

const char* check_level_name(CheckLevel level) {
  switch (level) {
    case CheckLevel::kOk: return "OK";
    case CheckLevel::kInfo: return "INFO";
    case CheckLevel::kWarn: return "WARN";
    case CheckLevel::kFail: return "FAIL";
  }
  return "?";
}

DoctorEnv DoctorEnv::system() {
  DoctorEnv env;
  env.cgroup = CgroupEnv::system();
  struct statvfs st {};
  if (::statvfs(shm::kShmMount, &st) == 0) {
    env.shm_total = uint64_t(st.f_blocks) * st.f_frsize;
    env.shm_free = uint64_t(st.f_bavail) * st.f_frsize;
  }
  env.overcommit_memory = read_kernel_text("/proc/sys/vm/overcommit_memory");
  env.overcommit_ratio = read_kernel_text("/proc/sys/vm/overcommit_ratio");
  env.meminfo = read_kernel_text("/proc/meminfo");
  env.thp = read_kernel_text("/sys/kernel/mm/transparent_hugepage/enabled");
  for (auto [res, dest] : {std::pair{RLIMIT_NOFILE, &env.nofile}, std::pair{RLIMIT_MEMLOCK, &env.memlock}}) {
    struct rlimit rl {};
    if (::getrlimit(res, &rl) != 0) continue;
    dest->soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : uint64_t(rl.rlim_cur);
    dest->hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : uint64_t(rl.rlim_max);
  }
  env.root = ::geteuid() == 0;
  env.cuda = backends::cuda_inventory();
  std::istringstream cpuinfo(read_kernel_text("/proc/cpuinfo"));
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) == 0) {
      env.cpu_flags = line.substr(line.find(':') + 1);
      break;
    }
  }
  constexpr uint32_t kMulx = cpu::kBmi2 | cpu::kAdx;
  env.built_fast_path = (cpu::kBuildFeatures & kMulx) == kMulx;
  return env;
}

std::vector<CheckLine> run_doctor_checks(const DoctorEnv& env, const DoctorRing& ring) {
  std::vector<CheckLine> out = {cgroup_check(env),           shm_check(env, ring), hugepages_check(env),
                                overcommit_check(env, ring), nofile_check(env),    memlock_check(env, ring)};
  for (auto& c : cuda_checks(env)) out.push_back(std::move(c));
  out.push_back(cpu_check(env));
  return out;
}

int doctor_exit_code(const std::vector<CheckLine>& lines) {
  for (const auto& l : lines) {
    if (l.level == CheckLevel::kFail) return 1;
  }
  return 0;
}

std::string format_doctor_text(const std::vector<CheckLine>& lines) {
  std::string out;
  for (const auto& l : lines) {
    out += fmt::format("{:<5} {:<11} {}\n", check_level_name(l.level), l.check, l.detail);
    if (!l.fix.empty()) out += fmt::format("{:<5} {:<11} fix: {}\n", "", "", l.fix);
  }
  return out;
}

nlohmann::json doctor_json(const std::vector<CheckLine>& lines) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& l : lines) {
    checks.push_back({{"check", l.check}, {"level", check_level_name(l.level)}, {"detail", l.detail}, {"fix", l.fix}});
  }
  const int code = doctor_exit_code(lines);
  return {{"ok", code == 0}, {"exit_code", code}, {"checks", std::move(checks)}};
}

std::vector<CheckLine> doctor_checks(const DoctorRing& ring) { return run_doctor_checks(DoctorEnv::system(), ring); }

}  // namespace proofpipe::engine
