// `proofpipe doctor` (commands.hpp): runs the checks of doctor.hpp on this
// host and prints one line each (or --json); with --zkey the ring that key
// needs at the default K is what /dev/shm and RLIMIT_MEMLOCK are held to.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_error.hpp"
#include "commands.hpp"
#include "proofpipe/engine/batch.hpp"
#include "proofpipe/engine/doctor.hpp"
#include "proofpipe/engine/plan.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::cli {

int cmd_doctor(const DoctorArgs& args) {
  engine::DoctorRing ring;
  if (!args.zkey.empty()) {
    // The header and sections' sizes only: no point is read.
    auto key = engine::load_pipeline_key(args.zkey);
    if (!key) return fail(key.status());
    engine::WorkerFlags defaults;  // `run` without --slots, --mem-budget, --gpus: K = synth + gpu workers
    defaults.gpu_workers = 1;
    std::string reason;
    auto slots = engine::choose_slot_count(defaults, 1, &reason);
    if (!slots) return fail(slots.status());
    ring.key = args.zkey;
    ring.slot_bytes = engine::slot_size_for((*key)->sizes());
    ring.slots = *slots;
  }
  const auto lines = engine::doctor_checks(ring);
  if (args.json) {
    std::printf("%s\n", engine::doctor_json(lines).dump(2).c_str());
  } else {
    std::printf("%s", engine::format_doctor_text(lines).c_str());
  }
  return engine::doctor_exit_code(lines);
}

}  // namespace proofpipe::cli
