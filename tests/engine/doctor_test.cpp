// `proofpipe doctor`'s checks (engine/src/doctor_env.hpp) on faked hosts: a
// good one, a small /dev/shm, no CUDA, cgroup v1, v2 delegated and not,
// strict overcommit, low limits, a CPU without ADX; the --json shape and the
// exit code (1 exactly when a line is FAIL).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "doctor_env.hpp"
#include "fake_cgroup_kernel.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::engine {
namespace {

namespace fs = std::filesystem;
constexpr uint64_t kMiB = 1 << 20, kGiB = 1ull << 30;

class Doctor : public ::testing::Test {
 protected:
  // A host where everything is fine: cgroup v2 delegated to us, a roomy
  // /dev/shm, one CUDA device, ADX and BMI2 in a build that uses them.
  void SetUp() override {
    kernel_ = std::make_unique<test::FakeCgroupKernel>(tmp_.path(), true);
    ASSERT_TRUE(kernel_->make_dir(kernel_->at("svc")));
    ASSERT_TRUE(kernel_->write(kernel_->at("") / "cgroup.subtree_control", "+memory +pids"));
    kernel_->delegate("svc");
    env_.cgroup.fs = kernel_.get();
    env_.cgroup.sysroot = tmp_.path();
    env_.cgroup.proc_self_cgroup = "0::/svc\n";
    env_.cgroup.proc_mounts = test::FakeCgroupKernel::mounts();
    env_.cgroup.self = ::getpid();
    env_.shm_total = 16 * kGiB;
    env_.shm_free = 15 * kGiB;
    env_.overcommit_memory = "0\n";
    env_.overcommit_ratio = "50\n";
    env_.meminfo = "MemTotal: 65536000 kB\nHugePages_Total:       0\nHugepagesize:       2048 kB\n";
    env_.thp = "always [madvise] never\n";
    env_.nofile = {65536, 65536};
    env_.memlock = {UINT64_MAX, UINT64_MAX};
    env_.cuda.built = true;
    env_.cuda.driver_version = 12040;
    env_.cuda.runtime_version = 12040;
    env_.cuda.devices = {{0, "NVIDIA H200", 140 * kGiB, 141 * kGiB}};
    env_.cpu_flags = "fpu sse2 avx2 bmi1 bmi2 adx";
    env_.built_fast_path = true;
    ring_ = {"big.zkey", 512 * kMiB, 3};
  }
  const CheckLine& line(const std::vector<CheckLine>& lines, const std::string& check) {
    for (const auto& l : lines) {
      if (l.check == check) return l;
    }
    static const CheckLine none{"none", CheckLevel::kFail, "no such line", ""};
    ADD_FAILURE() << "no " << check << " line";
    return none;
  }
  std::vector<CheckLine> checks() { return run_doctor_checks(env_, ring_); }

  test::TempDir tmp_;
  std::unique_ptr<test::FakeCgroupKernel> kernel_;
  DoctorEnv env_;
  DoctorRing ring_;
};

TEST_F(Doctor, GoodHostIsAllOkAndExitsZero) {
  const auto lines = checks();
  for (const auto& l : lines) {
    EXPECT_TRUE(l.level == CheckLevel::kOk || l.level == CheckLevel::kInfo) << l.check << ": " << l.detail;
    if (l.level == CheckLevel::kOk) {
      EXPECT_TRUE(l.fix.empty()) << l.check;
    }
  }
  EXPECT_EQ(doctor_exit_code(lines), 0);
  EXPECT_NE(line(lines, "cgroup").detail.find("cgroup v2: memory controller delegated"), std::string::npos);
  EXPECT_NE(line(lines, "cgroup").detail.find("peaks from memory.peak"), std::string::npos);
  EXPECT_NE(line(lines, "shm").detail.find("needs 1.50 GiB (K=3 slots of 512.00 MiB)"), std::string::npos)
      << line(lines, "shm").detail;
  const std::string text = format_doctor_text(lines);
  EXPECT_NE(text.find("device 0 NVIDIA H200: 140.00 GiB free of 141.00 GiB"), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA driver 12.4, runtime 12.4"), std::string::npos) << text;
}

TEST_F(Doctor, SmallShmFailsWithTheFix) {
  env_.shm_total = 64 * kMiB;  // docker's default
  env_.shm_free = 64 * kMiB;
  const auto lines = checks();
  const CheckLine& shm = line(lines, "shm");
  EXPECT_EQ(shm.level, CheckLevel::kFail) << shm.detail;
  EXPECT_NE(shm.fix.find("--shm-size"), std::string::npos) << shm.fix;
  EXPECT_EQ(doctor_exit_code(lines), 1);
  // Without a key there is nothing to hold it to: a warning only.
  ring_ = {};
  EXPECT_EQ(line(checks(), "shm").level, CheckLevel::kWarn);
  EXPECT_EQ(doctor_exit_code(checks()), 0);
  env_.shm_total.reset();
  env_.shm_free.reset();
  EXPECT_EQ(line(checks(), "shm").level, CheckLevel::kFail) << "no /dev/shm at all";
}

TEST_F(Doctor, NoCudaIsInformationNotFailure) {
  env_.cuda = {};
  env_.cuda.no_device_reason = "this build has no CUDA backend";
  const auto lines = checks();
  const CheckLine& cuda = line(lines, "cuda");
  EXPECT_EQ(cuda.level, CheckLevel::kInfo);
  EXPECT_EQ(cuda.detail.rfind("no CUDA device: proving runs on the CPU backend", 0), 0u) << cuda.detail;
  EXPECT_EQ(line(lines, "memlock").level, CheckLevel::kInfo) << "memlock matters only to the CUDA intake";
  EXPECT_EQ(doctor_exit_code(lines), 0);
}

TEST_F(Doctor, MemlockBelowTheRingWarnsForAUserWithCuda) {
  env_.memlock = {64 * 1024, 64 * 1024};
  env_.root = false;
  const CheckLine memlock = line(checks(), "memlock");
  EXPECT_EQ(memlock.level, CheckLevel::kWarn) << memlock.detail;
  EXPECT_NE(memlock.fix.find("LimitMEMLOCK=infinity"), std::string::npos);
  env_.root = true;
  EXPECT_EQ(line(checks(), "memlock").level, CheckLevel::kOk);
}

TEST_F(Doctor, CgroupV2NotDelegatedWarnsWithDelegateYes) {
  env_.cgroup.proc_self_cgroup = "0::/other\n";
  ASSERT_TRUE(kernel_->make_dir(kernel_->at("other")));
  const CheckLine cg = line(checks(), "cgroup");
  EXPECT_EQ(cg.level, CheckLevel::kWarn) << cg.detail;
  EXPECT_NE(cg.detail.find("not delegated"), std::string::npos) << cg.detail;
  EXPECT_NE(cg.fix.find("Delegate=yes"), std::string::npos) << cg.fix;
  EXPECT_EQ(doctor_exit_code(checks()), 0) << "runs fall back, they do not stop";
}

TEST_F(Doctor, CgroupV2WithoutMemoryPeakSaysSampled) {
  kernel_ = std::make_unique<test::FakeCgroupKernel>(tmp_.path() / "old", false);
  ASSERT_TRUE(kernel_->make_dir(kernel_->at("svc")));
  ASSERT_TRUE(kernel_->write(kernel_->at("") / "cgroup.subtree_control", "+memory"));
  kernel_->delegate("svc");
  env_.cgroup.fs = kernel_.get();
  env_.cgroup.sysroot = tmp_.path() / "old";
  const CheckLine cg = line(checks(), "cgroup");
  EXPECT_EQ(cg.level, CheckLevel::kOk) << cg.detail;
  EXPECT_NE(cg.detail.find("sampled from memory.current"), std::string::npos) << cg.detail;
}

TEST_F(Doctor, CgroupV1WritableIsOk) {
  const fs::path mem = tmp_.path() / "v1/sys/fs/cgroup/memory";
  fs::create_directories(mem / "jobs");
  std::ofstream(mem / "memory.limit_in_bytes") << "9223372036854771712";
  std::ofstream(mem / "jobs/cgroup.procs") << "";
  env_.cgroup.fs = &real_cgroup_fs();
  env_.cgroup.sysroot = tmp_.path() / "v1";
  env_.cgroup.proc_self_cgroup = "4:memory:/jobs\n0::/\n";
  env_.cgroup.proc_mounts = "cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n";
  const CheckLine cg = line(checks(), "cgroup");
  EXPECT_EQ(cg.level, CheckLevel::kOk) << cg.detail;
  EXPECT_EQ(cg.detail.rfind("cgroup v1: memory controller at", 0), 0u) << cg.detail;
  env_.cgroup.proc_mounts = "";
  EXPECT_EQ(line(checks(), "cgroup").level, CheckLevel::kWarn) << "no memory controller at all";
}

TEST_F(Doctor, StrictOvercommitWarnsAndFailsWithoutRoomForTheRing) {
  env_.overcommit_memory = "2\n";
  env_.meminfo += "CommitLimit: 33554432 kB\nCommitted_AS: 1048576 kB\n";  // 32 GiB, 1 GiB used
  EXPECT_EQ(line(checks(), "overcommit").level, CheckLevel::kWarn);
  env_.meminfo = "CommitLimit: 2097152 kB\nCommitted_AS: 1048576 kB\n";  // 1 GiB of room, 1.5 GiB ring
  const CheckLine oc = line(checks(), "overcommit");
  EXPECT_EQ(oc.level, CheckLevel::kFail) << oc.detail;
  EXPECT_NE(oc.detail.find("room 1.00 GiB"), std::string::npos) << oc.detail;
}

TEST_F(Doctor, LowNofileWarns) {
  env_.nofile = {256, 4096};
  EXPECT_EQ(line(checks(), "nofile").level, CheckLevel::kWarn);
}

TEST_F(Doctor, CpuFlagsAgainstTheBuild) {
  env_.cpu_flags = "fpu sse2 avx2";  // no ADX, no BMI2
  EXPECT_EQ(line(checks(), "cpu").level, CheckLevel::kFail) << "a -march=native build would die of SIGILL";
  EXPECT_EQ(doctor_exit_code(checks()), 1);
  env_.built_fast_path = false;
  EXPECT_EQ(line(checks(), "cpu").level, CheckLevel::kWarn);
  env_.cpu_flags = "adx bmi2";
  // The portable build chooses the mulx/adcx kernels at run time: nothing to fix.
  EXPECT_EQ(line(checks(), "cpu").level, CheckLevel::kOk) << "a portable build on a capable CPU";
  EXPECT_NE(line(checks(), "cpu").detail.find("chosen at run time"), std::string::npos);
}

TEST_F(Doctor, JsonShape) {
  env_.shm_free = 1 * kMiB;
  const auto lines = checks();
  const nlohmann::json j = doctor_json(lines);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 1);
  ASSERT_TRUE(j["checks"].is_array());
  ASSERT_EQ(j["checks"].size(), lines.size());
  for (const auto& c : j["checks"]) {
    for (const char* key : {"check", "level", "detail", "fix"}) EXPECT_TRUE(c[key].is_string()) << c.dump();
    const std::string level = c["level"];
    EXPECT_TRUE(level == "OK" || level == "INFO" || level == "WARN" || level == "FAIL") << level;
  }
  EXPECT_EQ(j["checks"][1]["check"], "shm");
  EXPECT_EQ(j["checks"][1]["level"], "FAIL");
}

}  // namespace
}  // namespace proofpipe::engine
