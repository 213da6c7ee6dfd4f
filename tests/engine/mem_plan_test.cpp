// The --mem-max plan (engine/include/proofpipe/engine/plan.hpp): the model covers every
// figure it was measured from, the plan is refused one byte below its
// minimum and made at it, its parts never add up to more than TOTAL (random
// totals, seeded), K stops at synth + 2 x gpu workers, explicit --slots and
// caps win only when they fit, and the lines say what they should.
#include <gtest/gtest.h>

#include <random>

#include "proofpipe/engine/plan.hpp"
#include "proofpipe/ipc/partition_layout.hpp"
#include "proofpipe/shm/layout.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::engine {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

uint64_t slot_for(uint32_t domain, uint32_t n_vars) {
  const ipc::PartitionLayout layout{domain, n_vars};
  return (layout.payload_len() + shm::kSlotAlign - 1) / shm::kSlotAlign * shm::kSlotAlign;
}

// The `proofpipe gen` workloads the model was measured on (engine/src/plan.cpp).
struct Workload {
  uint32_t domain, n_vars;
  uint64_t coef_bytes, point_bytes;
};
const Workload kGen14{1u << 15, 13977, 4'400'000, 9'000'000};
const Workload kGen16{1u << 17, 55747, 17'500'000, 36'000'000};
const Workload kGen18{1u << 19, 223014, 46'600'000, 158'000'000};

MemPlanInputs inputs(const Workload& w, unsigned synth = 2, unsigned gpu = 1, unsigned threads = 2) {
  MemPlanInputs in;
  in.slot_size = slot_for(w.domain, w.n_vars);
  in.key = {w.domain, w.n_vars, w.coef_bytes, w.point_bytes};
  in.synth_workers = synth;
  in.gpu_workers = gpu;
  in.threads = threads;
  return in;
}

uint64_t up_to_mib(uint64_t bytes) { return (bytes + kMiB - 1) / kMiB * kMiB; }

// The smallest TOTAL the plan takes, by the parts its refusal names.
uint64_t minimum(const MemPlanInputs& in) {
  return coordinator_need(in) + in.slot_size + up_to_mib(in.key.coef_bytes) + up_to_mib(in.key.point_bytes) +
         in.synth_workers * synth_private_need(in) + in.gpu_workers * gpu_private_need(in);
}

TEST(MemPlan, ModelCoversEveryMeasuredPeak) {
  // Leaf cgroup peaks in MiB, threads 1, 2, 4, 8 (engine/src/plan.cpp's table).
  const struct {
    Workload w;
    double synth[4], gpu[4];
  } rows[] = {
      {kGen14, {1.54, 1.75, 1.82, 2.00}, {15.84, 18.16, 22.37, 20.59}},
      {kGen16, {3.00, 3.04, 3.04, 3.26}, {36.85, 42.06, 43.15, 67.13}},
      {kGen18, {8.28, 8.25, 8.44, 8.47}, {140.98, 148.22, 160.20, 191.68}},
  };
  const unsigned threads[4] = {1, 2, 4, 8};
  for (const auto& row : rows) {
    for (int t = 0; t < 4; ++t) {
      const MemPlanInputs in = inputs(row.w, 2, 1, threads[t]);
      SCOPED_TRACE(testing::Message() << "domain " << row.w.domain << " threads " << threads[t]);
      EXPECT_GE(double(synth_private_need(in)) / kMiB, row.synth[t]);
      EXPECT_GE(double(gpu_private_need(in)) / kMiB, row.gpu[t]);
      // Not absurdly above either: within 2.5 x of what was measured (+4 MiB for the small ones).
      EXPECT_LE(double(gpu_private_need(in)) / kMiB, 2.5 * row.gpu[t] + 4);
    }
  }
}

TEST(MemPlan, NeedsGrowWithThreadsAndKey) {
  EXPECT_LT(gpu_private_need(inputs(kGen16, 2, 1, 1)), gpu_private_need(inputs(kGen16, 2, 1, 8)));
  EXPECT_LE(synth_private_need(inputs(kGen16, 2, 1, 1)), synth_private_need(inputs(kGen16, 2, 1, 8)));
  EXPECT_LT(gpu_private_need(inputs(kGen14)), gpu_private_need(inputs(kGen18)));
  EXPECT_LT(synth_private_need(inputs(kGen14)), synth_private_need(inputs(kGen18)));
  // Every figure a whole number of MiB.
  for (uint64_t v :
       {coordinator_need(inputs(kGen18)), synth_private_need(inputs(kGen18)), gpu_private_need(inputs(kGen18))}) {
    EXPECT_EQ(v % kMiB, 0u) << v;
  }
}

TEST(MemPlan, RefusedOneByteBelowTheMinimumAndMadeAtIt) {
  for (const Workload& w : {kGen14, kGen16, kGen18}) {
    const MemPlanInputs in = inputs(w);
    const uint64_t min = minimum(in);
    auto below = make_mem_plan(min - 1, in);
    ASSERT_FALSE(below.is_ok());
    const std::string msg = below.status().message();
    EXPECT_EQ(msg.find('\n'), std::string::npos);
    EXPECT_EQ(msg.rfind("--mem-max ", 0), 0u) << msg;
    EXPECT_NE(msg.find("cannot hold the coordinator, 1 slot and 2 synth workers + 1 proving worker: needs at least"),
              std::string::npos)
        << msg;
    auto at = make_mem_plan(min, in);
    ASSERT_TRUE(at.is_ok()) << at.status().message();
    EXPECT_EQ(at->slots, 1u);
    EXPECT_EQ(at->synth_cap, synth_private_need(in) + up_to_mib(w.coef_bytes));
    EXPECT_EQ(at->gpu_cap, gpu_private_need(in) + up_to_mib(w.point_bytes));
  }
  EXPECT_FALSE(make_mem_plan(0, inputs(kGen14)).is_ok());
}

// coordinator + ring + key pages (once) + each worker's cap less the key
// pages its role maps: never more than TOTAL.
TEST(MemPlan, PartsNeverExceedTotal) {
  PP_SEEDED_RNG(rng);
  const Workload loads[] = {kGen14, kGen16, kGen18};
  for (int i = 0; i < 2000; ++i) {
    const Workload& w = loads[rng() % 3];
    const MemPlanInputs in = inputs(w, 1 + unsigned(rng() % 8), 1 + unsigned(rng() % 4), 1 + unsigned(rng() % 64));
    const uint64_t min = minimum(in);
    const uint64_t total = min + rng() % (64 * min);
    SCOPED_TRACE(testing::Message() << "total " << total << " synth " << in.synth_workers << " gpu " << in.gpu_workers
                                    << " threads " << in.threads);
    auto plan = make_mem_plan(total, in);
    ASSERT_TRUE(plan.is_ok()) << plan.status().message();
    const uint64_t coef = up_to_mib(w.coef_bytes), points = up_to_mib(w.point_bytes);
    ASSERT_GE(plan->synth_cap, synth_private_need(in) + coef);
    ASSERT_GE(plan->gpu_cap, gpu_private_need(in) + points);
    const uint64_t sum = plan->coordinator + plan->slots * in.slot_size + plan->key_pages +
                         in.synth_workers * (plan->synth_cap - coef) + in.gpu_workers * (plan->gpu_cap - points);
    ASSERT_LE(sum, total);
    ASSERT_GE(plan->slots, 1u);
    ASSERT_LE(plan->slots, in.synth_workers + 2 * in.gpu_workers);
  }
}

TEST(MemPlan, SlotsStopAtSynthPlusTwiceGpuAndHugeTotalsDoNotOverflow) {
  const MemPlanInputs in = inputs(kGen16, 3, 2);
  auto plan = make_mem_plan(uint64_t(1) << 50, in);  // 1 PiB
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  EXPECT_EQ(plan->slots, 7u);
  EXPECT_GT(plan->gpu_cap, plan->synth_cap);
  auto most = make_mem_plan(UINT64_MAX, in);
  ASSERT_TRUE(most.is_ok()) << most.status().message();
  EXPECT_EQ(most->slots, 7u);
  EXPECT_GE(most->gpu_cap, gpu_private_need(in));
}

TEST(MemPlan, ExplicitSlotsAndCapsWinOnlyWhenTheyFit) {
  MemPlanInputs in = inputs(kGen16);
  const uint64_t min = minimum(in);
  in.slots = 5;
  in.slots_reason = "--slots 5";
  auto short_of = make_mem_plan(min + 3 * in.slot_size, in);
  ASSERT_FALSE(short_of.is_ok());
  EXPECT_NE(short_of.status().message().find("5 slots (--slots 5)"), std::string::npos) << short_of.status().message();
  auto fits = make_mem_plan(min + 4 * in.slot_size, in);
  ASSERT_TRUE(fits.is_ok()) << fits.status().message();
  EXPECT_EQ(fits->slots, 5u);
  EXPECT_EQ(fits->slots_reason, "--slots 5");

  MemPlanInputs capped = inputs(kGen16);
  capped.synth_cap = 512 * kMiB;
  auto too_big = make_mem_plan(min, capped);
  ASSERT_FALSE(too_big.is_ok());
  EXPECT_NE(too_big.status().message().find("512.00 MiB x2 (--synth-mem-max)"), std::string::npos)
      << too_big.status().message();
  auto roomy = make_mem_plan(2048 * kMiB, capped);
  ASSERT_TRUE(roomy.is_ok()) << roomy.status().message();
  EXPECT_EQ(roomy->synth_cap, 512 * kMiB);
  // The synthesis workers' key pages are inside their given cap: only the points count apart.
  EXPECT_EQ(roomy->key_pages, up_to_mib(kGen16.point_bytes));
}

TEST(MemPlan, StartLineSaysKAndTheCaps) {
  auto plan = make_mem_plan(2048 * kMiB, inputs(kGen16));
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  const std::string line = describe_mem_plan(*plan);
  EXPECT_EQ(line.rfind("--mem-max 2.00 GiB: K=4 slots of 13.70 MiB, synth cap ", 0), 0u) << line;
  EXPECT_NE(line.find(" x2, gpu cap "), std::string::npos) << line;
  EXPECT_NE(line.find(" x1, coordinator ~"), std::string::npos) << line;
}

TEST(MemPlan, MergedKeysTakeTheLargestShapesAndAllPages) {
  const KeySizes a{1u << 15, 100, 10, 20}, b{1u << 17, 50, 1, 2};
  const KeySizes m = merge_key_sizes(a, b);
  EXPECT_EQ(m.domain_size, 1u << 17);
  EXPECT_EQ(m.n_vars, 100u);
  EXPECT_EQ(m.coef_bytes, 11u);
  EXPECT_EQ(m.point_bytes, 22u);
}

}  // namespace
}  // namespace proofpipe::engine
