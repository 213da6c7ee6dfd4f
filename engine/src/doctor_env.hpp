// What the doctor's checks read (doctor.hpp): an injected environment, so
// tests can fake every input: the cgroup files, /dev/shm's size, the
// overcommit settings, huge pages, rlimits, CUDA and the CPU's flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cgroup_fs.hpp"
#include "proofpipe/backends/cuda_inventory.hpp"
#include "proofpipe/engine/doctor.hpp"

namespace proofpipe::engine {

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
  bool built_fast_path = false;  // this binary was compiled to require ADX and BMI2 (-DPP_NATIVE=ON)
  static DoctorEnv system();
};

std::vector<CheckLine> run_doctor_checks(const DoctorEnv& env, const DoctorRing& ring);

}  // namespace proofpipe::engine
