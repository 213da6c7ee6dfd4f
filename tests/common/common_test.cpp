// Size parsing, Status/Result, and the parallel_for pool.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "proofpipe/common/parallel.hpp"
#include "proofpipe/common/sizes.hpp"
#include "proofpipe/common/status.hpp"

namespace proofpipe::test {
namespace {

TEST(ParseSize, AcceptsUnitsAsUsersWriteThem) {
  EXPECT_EQ(parse_size("4096").value(), 4096u);
  EXPECT_EQ(parse_size("512M").value(), 512ull << 20);
  EXPECT_EQ(parse_size("4G").value(), 4ull << 30);
  EXPECT_EQ(parse_size("1.5GiB").value(), 3ull << 29);
  EXPECT_EQ(parse_size("100MB").value(), 100ull << 20);
  EXPECT_EQ(parse_size("2k").value(), 2048u);
  EXPECT_EQ(parse_size("1T").value(), 1ull << 40);
}

TEST(ParseSize, RejectsGarbageWithAMessageNamingTheText) {
  for (const char* bad : {"", "G", "12Q", "1.2.3M", "-5M", "0.5", "99999999999T"}) {
    auto r = parse_size(bad);
    ASSERT_FALSE(r.is_ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("size '"), std::string::npos) << r.status().message();
  }
}

TEST(FormatSize, PicksABinaryUnit) {
  EXPECT_EQ(format_size(512), "512 B");
  EXPECT_EQ(format_size(1536), "1.50 KiB");
  EXPECT_EQ(format_size(3ull << 30), "3.00 GiB");
}

Result<int> half(int x) {
  if (x % 2) return make_error(ErrorCode::kInvalidArgument, "{} is odd", x);
  return x / 2;
}
Status quarter(int x, int* out) {
  PP_ASSIGN_OR_RETURN(int h, half(x));
  PP_ASSIGN_OR_RETURN(*out, half(h));
  return Status::ok();
}

TEST(StatusTest, PropagatesTheFirstError) {
  int out = 0;
  EXPECT_TRUE(quarter(8, &out).is_ok());
  EXPECT_EQ(out, 2);
  Status st = quarter(6, &out);
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(st.to_string(), "invalid_argument: 3 is odd");
}

TEST(ParallelFor, RunsEveryIndexExactlyOnce) {
  for (size_t n : {0u, 1u, 2u, 7u, 1000u, 100003u}) {
    std::vector<std::atomic<int>> hits(n);
    parallel_for(n, [&](size_t i) { hits[i].fetch_add(1); });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ParallelFor, RangesCoverAndNestedCallsRunInline) {
  const size_t n = 12345;
  std::vector<std::atomic<int>> hits(n);
  parallel_for_range(n, [&](size_t b, size_t e) { parallel_for(e - b, [&](size_t i) { hits[b + i].fetch_add(1); }); });
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1);
}

}  // namespace
}  // namespace proofpipe::test
