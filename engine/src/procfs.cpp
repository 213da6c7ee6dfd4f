// procfs memory figures, names and start times (procfs.hpp).
#include "procfs.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace proofpipe::engine {

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

std::optional<std::string> read_proc_comm(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  if (!std::getline(f, name)) return std::nullopt;
  return name;
}

std::optional<uint64_t> read_proc_start_ticks(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  // "pid (comm) state ppid ...": comm may hold spaces and ')', so the fields
  // are counted from the last ')'; starttime is field 22, the 20th after it.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  for (int i = 0; i < 19; ++i) {
    if (!(rest >> field)) return std::nullopt;
  }
  uint64_t ticks = 0;
  if (!(rest >> ticks)) return std::nullopt;
  return ticks;
}

}  // namespace proofpipe::engine
