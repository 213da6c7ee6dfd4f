// One run per fault site of the fault-test plan (docs/design/recovery.md §6): the worker
// is SIGKILLed (or hangs, or returns a device error) at that moment on its
// second partition; the run must still prove every partition, each
// verified, none written twice, and the log must show the recovery the
// design prescribes for that moment. Also: the take intake at the sites it
// changes, a record damaged after its checksum, and a synthesis worker
// killed mid-write on a bn128 (BN254) key.
#include "support/fault_support.hpp"

namespace proofpipe::test {
namespace {

struct Site {
  const char* fault;                 // PROOFPIPE_FAULTS value
  const char* expect;                // a line the coordinator logs for the recovery
  const char* extra = "";            // extra run flags
  const char* env = "";              // extra environment (PP_GPU_INTAKE=take: the CUDA backend's intake)
  const char* fixture = "multi_io";  // the key and witnesses (multi_io_bn128: BN254)
};
void PrintTo(const Site& s, std::ostream* os) { *os << s.fault << " " << s.fixture; }

class FaultSites : public ::testing::TestWithParam<Site> {};
constexpr const char* kTake = "PP_GPU_INTAKE=take";

TEST_P(FaultSites, RunRecoversEveryProof) {
  const Site& site = GetParam();
  TempDir tmp;
  const int count = 6;
  const auto from = data_dir() / site.fixture;
  const auto wdir = make_witness_dir(tmp.path(), count, from);
  const auto out = tmp / "out";
  const auto rings_before = shm_rings();
  auto r =
      pp_run(run_flags(wdir, out, tmp / "run", from) + " --synth-workers 2 --gpu-workers 1 --slots 2 " + site.extra,
             std::string(site.env) + " PROOFPIPE_FAULTS=" + site.fault);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("firing"), std::string::npos) << "the fault never fired:\n" << r.output;
  EXPECT_NE(r.output.find("died"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(site.expect), std::string::npos) << "expected '" << site.expect << "' in:\n" << r.output;
  expect_all_proved(out, count, from);
  const auto summary = read_json(out / "summary.json");
  EXPECT_GE(summary["workers"]["restarts"].get<int>(), 1);
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
  EXPECT_TRUE(new_rings(rings_before).empty());
  EXPECT_FALSE(std::filesystem::exists(tmp / "run"));
}

// A failure the worker reports and lives through: the coordinator requeues
// the partition once, nobody is restarted, and every proof is made once.
struct Retry {
  const char* name;
  const char* env;     // the fault (and the intake)
  int synth_workers;   // 1 where the fault must fire once (counters are per process)
  const char* expect;  // a line the run logs
  const char* cause;   // in summary.json's retried[0].causes
};
void PrintTo(const Retry& r, std::ostream* os) { *os << r.name; }

class FaultRetries : public ::testing::TestWithParam<Retry> {};

TEST_P(FaultRetries, RequeueThePartitionOnceWithoutARestart) {
  const Retry& c = GetParam();
  TempDir tmp;
  const int count = 4;
  const auto wdir = make_witness_dir(tmp.path(), count);
  const auto out = tmp / "out";
  auto r = pp_run(
      run_flags(wdir, out, tmp / "run") + fmt::format(" --synth-workers {} --gpu-workers 1 --slots 2", c.synth_workers),
      c.env);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("firing"), std::string::npos) << "the fault never fired:\n" << r.output;
  EXPECT_NE(r.output.find(c.expect), std::string::npos) << "expected '" << c.expect << "' in:\n" << r.output;
  EXPECT_EQ(r.output.find("died"), std::string::npos) << r.output;
  expect_all_proved(out, count);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["workers"]["restarts"].get<int>(), 0);
  ASSERT_EQ(summary["retried"].size(), 1u) << summary.dump(2);
  EXPECT_EQ(summary["retried"][0]["attempts"].get<int>(), 2) << summary.dump(2);
  EXPECT_NE(summary["retried"][0]["causes"].dump().find(c.cause), std::string::npos) << summary.dump(2);
  EXPECT_EQ(summary["duplicate_proofs_dropped"], 0);
}

INSTANTIATE_TEST_SUITE_P(
    Reported, FaultRetries,
    ::testing::Values(
        // A device operation that fails without poisoning the device (a
        // non-sticky error): PROVE_FAILED, and the worker carries on.
        Retry{"prover_error", "PROOFPIPE_FAULTS=gpu.mid_compute:error@2", 2,
              "prover error: fault point gpu.mid_compute: injected error", "prover error"},
        // The same in the take intake, where it is the upload from the slot
        // that fails: the slot is released, the partition synthesized again.
        Retry{"failed_upload_take", "PP_GPU_INTAKE=take PROOFPIPE_FAULTS=gpu.intake:error@2", 2,
              "prover error: fault point gpu.intake: injected error", "prover error"},
        // A record damaged after its checksum was taken (a stray write, a
        // memory error): the checksum is found wrong, the slot quarantined;
        // with either intake (the take intake checksums the slot while the
        // backend copies it).
        Retry{"damaged_record_copy", "PP_GPU_INTAKE=copy PROOFPIPE_FAULTS=synth.before_seal:corrupt@2", 1,
              "does not match header", "corrupt slot record"},
        Retry{"damaged_record_take", "PP_GPU_INTAKE=take PROOFPIPE_FAULTS=synth.before_seal:corrupt@2", 1,
              "does not match header", "corrupt slot record"}),
    [](const ::testing::TestParamInfo<Retry>& p) { return std::string(p.param.name); });

INSTANTIATE_TEST_SUITE_P(Sites, FaultSites,
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
                                           Site{"synth.mid_write:exit@1", "injected exit fault"},
                                           // The take intake: the record goes into the backend from the slot.
                                           Site{"gpu.after_claim:kill@2", "reclaimed CONSUMING -> READY", "", kTake},
                                           Site{"gpu.mid_compute:kill@2", "after releasing its slot", "", kTake},
                                           // The upload fails for good with the slot held: no re-synthesis.
                                           Site{"gpu.intake:device_lost@2", "reclaimed CONSUMING -> READY", "", kTake},
                                           // BN254: the same recovery on a bn128 key's slots.
                                           Site{"synth.mid_write:kill@2", "reclaimed WRITING -> FREE", "", "",
                                                "multi_io_bn128"}),
                         [](const ::testing::TestParamInfo<Site>& p) {
                           std::string name = std::string(p.param.fault) + (*p.param.env != '\0' ? "_take" : "") +
                                              (std::string_view(p.param.fixture) != "multi_io" ? "_bn128" : "");
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace proofpipe::test
