// `proofpipe doctor` (commands.hpp): runs the checks of doctor.hpp on this
// host and prints one line each (or --json); with --zkey the ring that key
// needs at the default K is what /dev/shm and RLIMIT_MEMLOCK are held to.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_error.hpp"
#include "doctor.hpp"
#include "mem_plan.hpp"
#include "proofpipe/coordinator/commands.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "run_setup.hpp"

namespace proofpipe::cli {

int run_doctor(const DoctorArgs& args) {
  coord::DoctorRing ring;
  if (!args.zkey.empty()) {
    // The header and sections' sizes only: no point is read.
    auto key = coord::load_pipeline_key(args.zkey);
    if (!key) return fail(key.status());
    RunArgs defaults;  // `run` without --slots, --mem-budget, --gpus: K = synth + gpu workers
    defaults.gpu_workers = 1;
    std::string reason;
    auto slots = coord::choose_slot_count(defaults, 1, &reason);
    if (!slots) return fail(slots.status());
    ring.key = args.zkey;
    ring.slot_bytes = coord::slot_size_for((*key)->sizes());
    ring.slots = *slots;
  }
  const auto lines = coord::run_doctor_checks(coord::DoctorEnv::system(), ring);
  if (args.json) {
    std::printf("%s\n", coord::doctor_json(lines).dump(2).c_str());
  } else {
    std::printf("%s", coord::format_doctor_text(lines).c_str());
  }
  return coord::doctor_exit_code(lines);
}

}  // namespace proofpipe::cli
