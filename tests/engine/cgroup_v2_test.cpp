// The cgroup layer's v2 path (engine/src/cgroup.hpp) against a fake
// kernel (fake_cgroup_kernel.hpp): a cgroup2 tree in a
// temporary folder whose writes are checked against the kernel's rules. The
// coordinator must leave its cgroup before enabling controllers there, each
// worker leaf gets its cap and swap 0 and keeps oom.group 0 (an OOM kill
// takes the witness generator, not its worker), peaks come from
// memory.peak or sampling, a rising oom_kill is an OOM, removal waits for
// "populated 0", and a cgroup not delegated to us is left alone. These are
// not a kernel: docs/operations.md says what only a v2 host can show.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include <fmt/format.h>

#include "cgroup.hpp"
#include "cgroup_fs.hpp"
#include "fake_cgroup_kernel.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::engine {
namespace {

namespace fs = std::filesystem;
using test::FakeCgroupKernel;

constexpr const char* kUnit = "system.slice/proofpipe.service";
constexpr uint64_t kMiB = 1 << 20;

// A systemd-like host: memory and pids handed down to the service's cgroup,
// the coordinator (this test process's pid) in it.
class CgroupV2 : public ::testing::Test {
 protected:
  void SetUp() override { boot(true); }
  void boot(bool memory_peak, bool delegated = true) {
    kernel_.reset();
    fs::remove_all(tmp_.path() / "sys");  // a second boot starts from nothing
    kernel_ = std::make_unique<FakeCgroupKernel>(tmp_.path(), memory_peak);
    ASSERT_TRUE(kernel_->make_dir(kernel_->at("system.slice")));
    ASSERT_TRUE(kernel_->write(kernel_->at("") / "cgroup.subtree_control", "+memory +pids"));
    ASSERT_TRUE(kernel_->make_dir(kernel_->at(kUnit)));
    ASSERT_TRUE(kernel_->write(kernel_->at("system.slice") / "cgroup.subtree_control", "+memory +pids"));
    ASSERT_TRUE(kernel_->write(kernel_->at(kUnit) / "cgroup.procs", std::to_string(::getpid())));
    if (delegated) kernel_->delegate(kUnit);
    env_.fs = kernel_.get();
    env_.proc_self_cgroup = std::string("0::/") + kUnit + "\n";
    env_.proc_mounts = FakeCgroupKernel::mounts();
    env_.sysroot = tmp_.path();
    env_.self = ::getpid();
    env_.populated_wait_ms = 200;
    setup_log_ = kernel_->log().size();
  }
  CgroupRun create(uint64_t mem_max = 0) {
    why_.clear();
    return CgroupRun::create(0x2a, &why_, mem_max, &env_);
  }
  std::string run_rel() const { return std::string(kUnit) + fmt::format("/proofpipe-{}-{:016x}", ::getpid(), 0x2a); }
  // What the layer did (the fixture's own set-up left out).
  std::vector<std::string> layer_log() const {
    return {kernel_->log().begin() + long(setup_log_), kernel_->log().end()};
  }
  std::string dump() const {
    std::string s;
    for (const auto& l : kernel_->log()) s += "  " + l + "\n";
    for (const auto& r : kernel_->refusals()) s += "  REFUSED " + r + "\n";
    return s;
  }

  test::TempDir tmp_;
  std::unique_ptr<FakeCgroupKernel> kernel_;
  CgroupEnv env_;
  std::string why_;
  size_t setup_log_ = 0;
};

TEST_F(CgroupV2, CoordinatorLeavesItsCgroupBeforeEnablingControllers) {
  const long self = ::getpid();
  {
    CgroupRun run = create();
    ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_ << "\n" << dump();
    EXPECT_TRUE(kernel_->refusals().empty()) << dump();
    const long moved = kernel_->find("write /" + run_rel() + "/coordinator/cgroup.procs " + std::to_string(self));
    const long own_enabled = kernel_->find(std::string("write /") + kUnit + "/cgroup.subtree_control +memory");
    const long run_enabled = kernel_->find("write /" + run_rel() + "/cgroup.subtree_control +memory");
    ASSERT_GE(moved, 0) << dump();
    EXPECT_LT(moved, own_enabled) << dump();
    EXPECT_LT(own_enabled, run_enabled) << "top-down\n" << dump();
    EXPECT_GE(kernel_->find("write /" + run_rel() + "/cgroup.subtree_control +pids"), 0) << dump();
    EXPECT_TRUE(kernel_->procs(kUnit).empty());
    EXPECT_EQ(kernel_->procs(run_rel() + "/coordinator"), std::vector<long>{self});
    ASSERT_NE(run.coordinator_leaf(), nullptr);
    EXPECT_EQ(run.describe(), "cgroup v2, peaks from memory.peak");
  }
  // At the end: the coordinator in a sibling leaf (its own cgroup hands
  // controllers down, so it may hold no process), the run's tree gone.
  EXPECT_TRUE(kernel_->refusals().empty()) << dump();
  EXPECT_FALSE(fs::exists(kernel_->at(run_rel()))) << dump();
  EXPECT_EQ(kernel_->procs(std::string(kUnit) + "/proofpipe-coordinator-" + std::to_string(self)),
            std::vector<long>{self});
}

// The checker itself: the order the kernel refuses is refused here too.
TEST_F(CgroupV2, TheKernelsRulesRefuseAWrongOrder) {
  const fs::path own = kernel_->at(kUnit);
  Status st = kernel_->write(own / "cgroup.subtree_control", "+memory");  // we are still in it
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("Device or resource busy"), std::string::npos) << st.message();
  ASSERT_TRUE(kernel_->make_dir(own / "leaf"));
  EXPECT_FALSE(kernel_->exists(own / "leaf" / "memory.max")) << "memory is not handed down yet";
  EXPECT_FALSE(kernel_->write(own / "leaf" / "memory.max", "1048576"));
  EXPECT_FALSE(kernel_->write(own / "leaf" / "cgroup.subtree_control", "+cpu")) << "cpu is not in its controllers";
  ASSERT_TRUE(kernel_->write(own / "leaf" / "cgroup.procs", std::to_string(::getpid())));
  ASSERT_TRUE(kernel_->write(own / "cgroup.subtree_control", "+memory"));
  EXPECT_TRUE(kernel_->exists(own / "leaf" / "memory.max"));
  EXPECT_FALSE(kernel_->write(own / "cgroup.procs", std::to_string(::getpid()))) << "no internal processes";
  EXPECT_FALSE(kernel_->remove_dir(own / "leaf")) << "populated";
  EXPECT_EQ(kernel_->refusals().size(), 5u) << dump();
}

// Another process shares the cgroup we started in (a shell that ran us in a
// delegated scope): enabling controllers there is refused, so the layer
// falls back, leaves nothing behind and puts the coordinator back.
TEST_F(CgroupV2, RefusedEnableFallsBackAndCleansUp) {
  const long shell = 999999;
  ASSERT_TRUE(kernel_->write(kernel_->at(kUnit) / "cgroup.procs", std::to_string(shell)));
  CgroupRun run = create();
  EXPECT_EQ(run.version(), CgroupVersion::kUnavailable) << dump();
  EXPECT_NE(why_.find("Device or resource busy"), std::string::npos) << why_;
  EXPECT_FALSE(fs::exists(kernel_->at(run_rel()))) << dump();
  const auto procs = kernel_->procs(kUnit);
  EXPECT_NE(std::find(procs.begin(), procs.end(), long(::getpid())), procs.end()) << dump();
  EXPECT_EQ(kernel_->refusals().size(), 1u) << dump();
}

TEST_F(CgroupV2, WorkerLeafHasCapNoSwapAndNoOomGroup) {
  CgroupRun run = create();
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_;
  auto leaf = run.make_leaf("synth.0.1", 64 * kMiB);
  ASSERT_TRUE(leaf) << leaf.status().message() << "\n" << dump();
  const std::string rel = run_rel() + "/synth.0.1";
  EXPECT_EQ(kernel_->file(rel, "memory.max"), std::to_string(64 * kMiB));
  EXPECT_EQ(kernel_->file(rel, "memory.swap.max"), "0");
  EXPECT_EQ(kernel_->file(rel, "memory.oom.group"), "0");
  ASSERT_TRUE(leaf->add(4242));
  EXPECT_EQ(kernel_->procs(rel), std::vector<long>{4242});
  auto uncapped = run.make_leaf("gpu.2.1", 0);
  ASSERT_TRUE(uncapped);
  EXPECT_EQ(kernel_->file(run_rel() + "/gpu.2.1", "memory.max"), "max");
  EXPECT_EQ(kernel_->file(run_rel() + "/gpu.2.1", "memory.oom.group"), "0");
  kernel_->exit_process(4242);
  leaf->remove();
  uncapped->remove();
  EXPECT_FALSE(fs::exists(kernel_->at(rel)));
  EXPECT_TRUE(kernel_->refusals().empty()) << dump();
}

TEST_F(CgroupV2, MemMaxCapsTheRunWithTheCoordinatorInside) {
  CgroupRun run = create(512 * kMiB);
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_ << "\n" << dump();
  EXPECT_EQ(run.mem_max(), 512 * kMiB);
  EXPECT_EQ(kernel_->file(run_rel(), "memory.max"), std::to_string(512 * kMiB));
  EXPECT_EQ(kernel_->file(run_rel(), "memory.swap.max"), "0");
  ASSERT_NE(run.coordinator_leaf(), nullptr);
  EXPECT_EQ(kernel_->procs(run_rel() + "/coordinator"), std::vector<long>{::getpid()});
  kernel_->set_file(run_rel(), "memory.peak", std::to_string(100 * kMiB));
  EXPECT_EQ(run.peak_bytes(), 100 * kMiB);
  EXPECT_TRUE(kernel_->refusals().empty()) << dump();
}

TEST_F(CgroupV2, MissingMemoryPeakFallsBackToSamplingMemoryCurrent) {
  boot(/*memory_peak=*/false);
  CgroupRun run = create();
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_;
  EXPECT_EQ(run.describe(), "cgroup v2, peaks sampled from memory.current");
  auto leaf = run.make_leaf("gpu.2.1", 0);
  ASSERT_TRUE(leaf);
  EXPECT_TRUE(leaf->peak_sampled());
  const CgroupLeaf copy = *leaf;  // the spawner's copy: samples are shared
  const std::string rel = run_rel() + "/gpu.2.1";
  for (uint64_t mib : {10, 30, 5}) {
    kernel_->set_file(rel, "memory.current", std::to_string(mib * kMiB));
    EXPECT_EQ(copy.usage_bytes(), mib * kMiB);
  }
  EXPECT_EQ(leaf->peak_bytes(), 30 * kMiB);
  kernel_->set_file(rel, "memory.current", std::to_string(40 * kMiB));
  EXPECT_EQ(leaf->peak_bytes(), 40 * kMiB) << "a peak read is a sample too";
}

TEST_F(CgroupV2, RisingOomKillCountIsAnOom) {
  CgroupRun run = create();
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_;
  const std::string rel = run_rel() + "/synth.0.1";
  ASSERT_TRUE(kernel_->make_dir(kernel_->at(rel)));
  // A count already there when the leaf was taken is not this worker's.
  kernel_->set_file(rel, "memory.events", "low 0\nhigh 0\nmax 3\noom 2\noom_kill 2\noom_group_kill 0\n");
  const CgroupLeaf leaf(CgroupVersion::kV2, kernel_->at(rel), kernel_.get(), 50);
  EXPECT_EQ(leaf.oom_kills(), 0u);
  kernel_->set_file(rel, "memory.events", "low 0\nhigh 0\nmax 9\noom 3\noom_kill 3\noom_group_kill 1\n");
  EXPECT_EQ(leaf.oom_kills(), 1u);
  // A group kill counted where oom_kill was not (oom_group_kill alone rising).
  auto other = run.make_leaf("synth.0.2", 64 * kMiB);
  ASSERT_TRUE(other);
  kernel_->set_file(run_rel() + "/synth.0.2", "memory.events", "oom 1\noom_kill 0\noom_group_kill 1\n");
  EXPECT_EQ(other->oom_kills(), 1u);
}

TEST_F(CgroupV2, RemovalWaitsForPopulatedZero) {
  CgroupRun run = create();
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_;
  auto leaf = run.make_leaf("gpu.2.1", 0);
  ASSERT_TRUE(leaf && leaf->add(4242));
  // The kernel empties the leaf only at the third look at cgroup.events.
  int looks = 0;
  kernel_->on_read = [&](const fs::path& f) {
    if (f == leaf->dir() / "cgroup.events" && ++looks == 3) kernel_->exit_process(4242);
  };
  leaf->remove();
  kernel_->on_read = nullptr;  // it refers to `leaf`, gone before `run`
  EXPECT_GE(looks, 3);
  EXPECT_FALSE(fs::exists(leaf->dir())) << dump();
  EXPECT_TRUE(kernel_->refusals().empty()) << dump();
}

TEST_F(CgroupV2, RemovalWaitIsBounded) {
  CgroupRun run = create();
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_;
  auto leaf = run.make_leaf("gpu.2.1", 0);
  ASSERT_TRUE(leaf && leaf->add(4242));  // never exits
  const auto t0 = std::chrono::steady_clock::now();
  leaf->remove();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(ms, 200.0);
  EXPECT_LT(ms, 2000.0);
  ASSERT_EQ(kernel_->refusals().size(), 1u) << dump();
  EXPECT_EQ(kernel_->refusals()[0].rfind("rmdir ", 0), 0u) << dump();
  kernel_->exit_process(4242);  // so the run's own removal succeeds
}

TEST_F(CgroupV2, NotDelegatedIsLeftAlone) {
  boot(true, /*delegated=*/false);
  CgroupRun run = create();
  EXPECT_EQ(run.version(), CgroupVersion::kUnavailable);
  EXPECT_NE(why_.find("is not delegated to this process"), std::string::npos) << why_;
  EXPECT_TRUE(layer_log().empty()) << "nothing may be written there\n" << dump();
}

TEST_F(CgroupV2, MemoryNotHandedDownIsReported) {
  ASSERT_TRUE(kernel_->write(kernel_->at("system.slice") / "cgroup.subtree_control", "-memory"));
  const CgroupProbe p = probe_cgroups(env_);
  EXPECT_EQ(p.version, CgroupVersion::kV2);
  EXPECT_FALSE(p.memory);
  EXPECT_NE(p.why.find("the memory controller is not enabled"), std::string::npos) << p.why;
  EXPECT_EQ(create().version(), CgroupVersion::kUnavailable);
}

// A container's own cgroup namespace: its cgroup is "/", delegated by the
// runtime; the root may hold processes and still enable controllers.
TEST_F(CgroupV2, ContainerNamespaceRootIsDelegated) {
  kernel_->exit_process(::getpid());
  ASSERT_TRUE(kernel_->write(kernel_->at("") / "cgroup.procs", std::to_string(::getpid())));
  env_.proc_self_cgroup = "0::/\n";
  CgroupRun run = create();
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_ << "\n" << dump();
  EXPECT_EQ(run.dir().parent_path(), kernel_->root());
  EXPECT_TRUE(kernel_->refusals().empty()) << dump();
}

TEST_F(CgroupV2, StaleRunOfADeadCoordinatorIsSwept) {
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string stale = std::string(kUnit) + fmt::format("/proofpipe-{}-00000000000000ff", dead);
  ASSERT_TRUE(kernel_->make_dir(kernel_->at(stale)));
  ASSERT_TRUE(kernel_->make_dir(kernel_->at(stale + "/synth.0.1")));
  CgroupRun run = create();
  ASSERT_EQ(run.version(), CgroupVersion::kV2) << why_ << "\n" << dump();
  EXPECT_FALSE(fs::exists(kernel_->at(stale))) << dump();
  EXPECT_TRUE(kernel_->refusals().empty()) << dump();
}

// v1 from /proc/mounts (hybrid hosts such as the build machines): the memory
// controller's own mount wins over a cgroup2 mount without it.
TEST(CgroupProbe, V1MemoryMountWins) {
  test::TempDir tmp;
  fs::create_directories(tmp.path() / "sys/fs/cgroup/memory/job/7");
  std::ofstream(tmp.path() / "sys/fs/cgroup/memory/memory.limit_in_bytes") << "9223372036854771712";
  std::ofstream(tmp.path() / "sys/fs/cgroup/memory/job/7/cgroup.procs") << "";
  CgroupEnv env;
  env.fs = &real_cgroup_fs();
  env.sysroot = tmp.path();
  env.proc_self_cgroup = "5:memory:/job/7\n1:cpu:/\n0::/\n";
  env.proc_mounts =
      "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
  const CgroupProbe p = probe_cgroups(env);
  EXPECT_EQ(p.version, CgroupVersion::kV1);
  EXPECT_EQ(p.own, tmp.path() / "sys/fs/cgroup/memory/job/7");
  EXPECT_TRUE(p.usable()) << p.why;
  // Without the v1 memory mount, the cgroup2 one (which offers no memory here).
  env.proc_mounts = "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
  const CgroupProbe q = probe_cgroups(env);
  EXPECT_EQ(q.version, CgroupVersion::kV2);
  EXPECT_FALSE(q.usable());
}

}  // namespace
}  // namespace proofpipe::engine
