// The checks behind `proofpipe doctor` (cmd_doctor.cpp; docs/operations.md,
// "Before production: proofpipe doctor"): what this host offers a run, each
// as OK, INFO, WARN or FAIL with what to change. They read an injected
// environment (DoctorEnv), so tests can fake every input: the cgroup files,
// /dev/shm's size, the overcommit settings, huge pages, rlimits, CUDA and
// the CPU's flags. FAIL means a run would stop (a ring that does not fit in
// /dev/shm, a binary built for CPU instructions this CPU lacks); WARN means
// it runs, with something lost (caps, OOM classification, speed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cgroup_fs.hpp"
#include "proofpipe/backends/cuda_inventory.hpp"

namespace proofpipe::coord {

enum class CheckLevel { kOk, kInfo, kWarn, kFail };
const char* check_level_name(CheckLevel level);  // "OK", "INFO", "WARN", "FAIL"

struct CheckLine {
  std::string check;  // "cgroup", "shm", "hugepages", "overcommit", "nofile", "memlock", "cuda", "cpu"
  CheckLevel level = CheckLevel::kOk;
  std::string detail;  // what was found
  std::string fix;     // what to change (empty for OK and INFO)
};

struct Rlimit {
  uint64_t soft = 0, hard = 0;  // UINT64_MAX: unlimited
};

struct DoctorEnv {
  CgroupEnv cgroup;
  std::optional<uint64_t> shm_total, shm_free;  // statvfs("/dev/shm"); nullopt: not there
  std::string overcommit_memory;                // /proc/sys/vm/overcommit_memory ("" unreadable)
  std::string overcommit_ratio;                 // /proc/sys/vm/overcommit_ratio
  std::string meminfo;                          // /proc/meminfo
  std::string thp;                              // /sys/kernel/mm/transparent_hugepage/enabled
  Rlimit nofile, memlock;
  bool root = false;  // euid 0: CAP_IPC_LOCK, so RLIMIT_MEMLOCK does not bind
  backends::CudaInventory cuda;
  std::string cpu_flags;         // the "flags" line of /proc/cpuinfo
  bool built_fast_path = false;  // this binary was compiled for ADX and BMI2 (-march=native)
  static DoctorEnv system();
};

// The ring a key would need: K slots of slot_bytes (slots 0: no key given).
struct DoctorRing {
  std::string key;
  uint64_t slot_bytes = 0;
  uint32_t slots = 0;
  uint64_t bytes() const { return slot_bytes * slots; }
};

std::vector<CheckLine> run_doctor_checks(const DoctorEnv& env, const DoctorRing& ring);
// 1 when a line is FAIL, else 0.
int doctor_exit_code(const std::vector<CheckLine>& lines);
// The screen: one line per check, "fix:" under the ones that need it.
std::string format_doctor_text(const std::vector<CheckLine>& lines);
// {"ok": bool, "exit_code": n, "checks": [{"check","level","detail","fix"}]}
nlohmann::json doctor_json(const std::vector<CheckLine>& lines);

}  // namespace proofpipe::coord
