// One run per fault site of the shm-recovery test plan (issue 5): the worker
// is SIGKILLed (or hangs, or returns a device error) at that moment on its
// second partition; the run must still prove every partition, each
// verified, none written twice, and the log must show the recovery the
// design prescribes for that moment.
#include "fault_support.hpp"

namespace proofpipe::test {
namespace {

struct Site {
  const char* fault;      // PROOFPIPE_FAULTS value
  const char* expect;     // a line the coordinator logs for the recovery
  const char* extra = ""; // extra run flags
};
void PrintTo(const Site& s, std::ostream* os) { *os << s.fault; }

class FaultSites : public ::testing::TestWithParam<Site> {};

TEST_P(FaultSites, RunRecoversEveryProof) {
  const Site& site = GetParam();
  TempDir tmp;
  const int count = 6;
  const auto wdir = make_witness_dir(tmp.path(), count);
  const auto out = tmp / "out";
  const auto rings_before = shm_rings();
  auto r = pp_run(run_flags(wdir, out, tmp / "run") + " --synth-workers 2 --gpu-workers 1 --slots 2 " + site.extra,
                  std::string("PROOFPIPE_FAULTS=") + site.fault);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("firing"), std::string::npos) << "the fault never fired:\n" << r.output;
  EXPECT_NE(r.output.find("died"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(site.expect), std::string::npos) << "expected '" << site.expect << "' in:\n" << r.output;
  expect_all_proved(out, count);
  const auto summary = read_json(out / "summary.json");
  EXPECT_GE(summary["workers"]["restarts"].get<int>(), 1);
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
  EXPECT_TRUE(new_rings(rings_before).empty());
  EXPECT_FALSE(std::filesystem::exists(tmp / "run"));
}

// A device operation that fails without poisoning the device (a non-sticky
// error): the worker says PROVE_FAILED and carries on, the coordinator
// requeues the partition, nobody is restarted, and every proof is made once.
TEST(FaultErrors, ProverErrorRequeuesThePartitionWithoutARestart) {
  TempDir tmp;
  const int count = 4;
  const auto wdir = make_witness_dir(tmp.path(), count);
  const auto out = tmp / "out";
  auto r = pp_run(run_flags(wdir, out, tmp / "run") + " --synth-workers 2 --gpu-workers 1 --slots 2",
                  "PROOFPIPE_FAULTS=gpu.mid_compute:error@2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("firing"), std::string::npos) << "the fault never fired:\n" << r.output;
  EXPECT_NE(r.output.find("prover error: fault point gpu.mid_compute: injected error"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("died"), std::string::npos) << r.output;
  expect_all_proved(out, count);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["workers"]["restarts"].get<int>(), 0);
  ASSERT_EQ(summary["retried"].size(), 1u) << summary.dump(2);
  EXPECT_EQ(summary["retried"][0]["attempts"].get<int>(), 2) << summary.dump(2);
  EXPECT_NE(summary["retried"][0]["causes"].dump().find("prover error"), std::string::npos) << summary.dump(2);
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
}

INSTANTIATE_TEST_SUITE_P(
    Sites, FaultSites,
    ::testing::Values(Site{"synth.after_grant:kill@2", "reclaimed WRITING -> FREE"},
                      Site{"synth.mid_write:kill@2", "reclaimed WRITING -> FREE"},
                      Site{"synth.before_seal:kill@2", "reclaimed WRITING -> FREE"},
                      Site{"synth.after_seal:kill@2", "before the death: kept, no re-synthesis"},
                      Site{"gpu.after_claim:kill@2", "reclaimed CONSUMING -> READY"},
                      Site{"gpu.mid_compute:kill@2", "after releasing its slot"},
                      Site{"gpu.after_release:kill@2", "after releasing its slot"},
                      Site{"gpu.before_proof_msg:kill@2", "after releasing its slot"},
                      Site{"gpu.mid_compute:hang@2", "no heartbeat", "--hang-timeout 1"},
                      // A sticky device error: the worker exits with its own code, is restarted.
                      Site{"gpu.mid_compute:device_lost@2", "exit 68 (GPU device error)"},
                      Site{"synth.mid_write:exit@1", "injected exit fault"}),
    [](const ::testing::TestParamInfo<Site>& p) {
      std::string name = p.param.fault;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace proofpipe::test
