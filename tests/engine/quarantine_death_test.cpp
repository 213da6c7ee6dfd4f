// A proving worker that quarantines a corrupt record and is SIGKILLed before
// its QUARANTINED message leaves (fault site gpu.after_quarantine): only the
// slot word says what happened. With one slot, a slot lost to it would hang
// the run, so the run is bounded by a timeout; it must finish with every
// proof valid and every slot FREE.
#include "support/fault_support.hpp"

namespace proofpipe::test {
namespace {

TEST(QuarantineDeath, AProverKilledAfterQuarantiningLosesNoSlot) {
  TempDir tmp;
  const int count = 3;
  const auto wdir = make_witness_dir(tmp.path(), count);
  const auto out = tmp / "out";
  auto r = pp_run(run_flags(wdir, out, tmp / "run") + " --synth-workers 1 --gpu-workers 1 --slots 1",
                  "PP_GPU_INTAKE=copy PROOFPIPE_FAULTS=synth.before_seal:corrupt@2,gpu.after_quarantine:kill "
                  "timeout -s KILL 60");
  ASSERT_EQ(r.exit_code, 0) << "(137: the run hung on the lost slot and was killed)\n" << r.output;
  EXPECT_NE(r.output.find("does not match header"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fault point gpu.after_quarantine"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("died"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(" ends "), std::string::npos) << "a slot did not end FREE:\n" << r.output;
  expect_all_proved(out, count);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
}

}  // namespace
}  // namespace proofpipe::test
