// The checks behind `proofpipe doctor` (cmd_doctor.cpp; docs/operations.md,
// "Before production: proofpipe doctor"): what this host offers a run, each
// as OK, INFO, WARN or FAIL with what to change (doctor_env.hpp: the
// environment they read, which tests fake). FAIL means a run would stop (a ring that does not fit in
// /dev/shm, a binary built for CPU instructions this CPU lacks); WARN means
// it runs, with something lost (caps, OOM classification, speed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace proofpipe::engine {

enum class CheckLevel { kOk, kInfo, kWarn, kFail };
const char* check_level_name(CheckLevel level);  // "OK", "INFO", "WARN", "FAIL"

struct CheckLine {
  std::string check;  // "cgroup", "shm", "hugepages", "overcommit", "nofile", "memlock", "cuda", "cpu"
  CheckLevel level = CheckLevel::kOk;
  std::string detail;  // what was found
  std::string fix;     // what to change (empty for OK and INFO)
};

// The ring a key would need: K slots of slot_bytes (slots 0: no key given).
struct DoctorRing {
  std::string key;
  uint64_t slot_bytes = 0;
  uint32_t slots = 0;
  uint64_t bytes() const { return slot_bytes * slots; }
};

// The checks on this host (its real files, limits and devices).
std::vector<CheckLine> doctor_checks(const DoctorRing& ring);

// 1 when a line is FAIL, else 0.
int doctor_exit_code(const std::vector<CheckLine>& lines);
// The screen: one line per check, "fix:" under the ones that need it.
std::string format_doctor_text(const std::vector<CheckLine>& lines);
// {"ok": bool, "exit_code": n, "checks": [{"check","level","detail","fix"}]}
nlohmann::json doctor_json(const std::vector<CheckLine>& lines);

}  // namespace proofpipe::engine
