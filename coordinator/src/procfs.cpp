// procfs memory figures (procfs.hpp).
#include "procfs.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace proofpipe::coord {

std::optional<ProcMemory> read_proc_memory(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  if (!f) return std::nullopt;
  ProcMemory m;
  std::string line;
  bool any = false;
  while (std::getline(f, line)) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "VmRSS: %llu kB", &kib) == 1) {
      m.rss = kib << 10;
      any = true;
    } else if (std::sscanf(line.c_str(), "VmHWM: %llu kB", &kib) == 1) {
      m.hwm = kib << 10;
    } else if (std::sscanf(line.c_str(), "RssShmem: %llu kB", &kib) == 1) {
      m.rss_shmem = kib << 10;
    }
  }
  if (!any) return std::nullopt;  // a zombie has no VmRSS line
  return m;
}

void reset_proc_hwm(pid_t pid) {
  std::ofstream f("/proc/" + std::to_string(pid) + "/clear_refs");
  f << "5";
}

}  // namespace proofpipe::coord
