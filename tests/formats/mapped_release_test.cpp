// MappedFile::release and check_in_chunks (formats/mapped_file.hpp): released
// pages leave this process's RSS (read from /proc/self/smaps for the mapping)
// while the bytes stay readable and unchanged, and a zkey loaded with
// release_coefficients has the same coefficients as one loaded without.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "proofpipe/formats/mapped_file.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;

// Resident KiB of the mapping that starts at `base`, from /proc/self/smaps.
long mapping_rss_kib(const void* base) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_it = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      in_it = lo == reinterpret_cast<uintptr_t>(base);
      continue;
    }
    if (in_it && line.rfind("Rss:", 0) == 0) return std::stol(line.substr(4));
  }
  return -1;
}

TEST(MappedFile, ReleasedPagesLeaveRssAndReadBackUnchanged) {
  PP_SEEDED_RNG(rng);
  const fs::path path = fs::temp_directory_path() / ("pp_release_" + std::to_string(::getpid()));
  constexpr size_t kBytes = size_t{24} << 20;  // 3 chunks of check_in_chunks
  std::vector<uint8_t> data(kBytes);
  for (auto& b : data) b = uint8_t(rng());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::streamsize(kBytes));

  auto file = formats::MappedFile::open(path);
  fs::remove(path);  // the mapping keeps the inode
  ASSERT_TRUE(file.is_ok());
  const auto bytes = file->bytes();
  uint64_t sum = 0;
  ASSERT_TRUE(formats::check_in_chunks(*file, bytes, 8, false, [&](size_t first, size_t last) {
    for (size_t i = first; i < last; ++i) sum += bytes[i * 8];
    return Status::ok();
  }));
  const long touched = mapping_rss_kib(bytes.data());
  ASSERT_GE(touched, long(kBytes / 1024) * 9 / 10) << "the scan should have made the file resident";

  // A second scan with release: at most one chunk's pages stay resident.
  uint64_t sum2 = 0;
  ASSERT_TRUE(formats::check_in_chunks(*file, bytes, 8, true, [&](size_t first, size_t last) {
    for (size_t i = first; i < last; ++i) sum2 += bytes[i * 8];
    return Status::ok();
  }));
  EXPECT_EQ(sum, sum2);
  EXPECT_LE(mapping_rss_kib(bytes.data()), 8) << "released pages are still resident";
  EXPECT_TRUE(std::equal(data.begin(), data.end(), bytes.begin())) << "bytes changed after release";

  // A range that covers no whole page, and one outside the mapping, are no-ops.
  file->release(bytes.subspan(1, 100));
  file->release(std::span<const uint8_t>(data.data(), 4096));
  EXPECT_TRUE(std::equal(data.begin(), data.begin() + 4096, bytes.begin()));
}

TEST(MappedFile, CheckInChunksStopsAtTheFirstError) {
  const fs::path path = fs::temp_directory_path() / ("pp_chunks_" + std::to_string(::getpid()));
  std::ofstream(path, std::ios::binary) << std::string(size_t{20} << 20, 'x');
  auto file = formats::MappedFile::open(path);
  fs::remove(path);
  ASSERT_TRUE(file.is_ok());
  size_t calls = 0, covered = 0;
  const Status st = formats::check_in_chunks(*file, file->bytes(), 4, true, [&](size_t first, size_t last) {
    ++calls;
    covered += last - first;
    return calls == 2 ? Status(ErrorCode::kBadFormat, "stop") : Status::ok();
  });
  EXPECT_EQ(st.code(), ErrorCode::kBadFormat);
  EXPECT_EQ(calls, 2u);
  EXPECT_LT(covered, (size_t{20} << 20) / 4);
}

TEST(Zkey, ReleasedCoefficientsReadTheSame) {
  for (const char* circuit : {"multi_io", "sparse_dense"}) {
    SCOPED_TRACE(circuit);
    const fs::path path = fs::path(PP_TEST_DATA_DIR) / circuit / "circuit.zkey";
    auto kept = formats::load_zkey<curves::Bls12_381>(path, {.points = false});
    auto released = formats::load_zkey<curves::Bls12_381>(path, {.points = false, .release_coefficients = true});
    ASSERT_TRUE(kept.is_ok() && released.is_ok());
    ASSERT_EQ(kept->coefs().size(), released->coefs().size());
    EXPECT_EQ(std::memcmp(kept->coefs().data(), released->coefs().data(), kept->coefs().size_bytes()), 0);
  }
}

}  // namespace
}  // namespace proofpipe::test
