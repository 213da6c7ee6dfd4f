// zkey point encoding (see ec/zkey_layout.hpp): parse with validation, write,
// and parallel validation of in-place spans. The encoding equals the memory
// layout, so parsing is a memcpy followed by the checks.
#include "proofpipe/ec/zkey_layout.hpp"

#include <atomic>
#include <cstring>
#include <mutex>

#include "proofpipe/common/parallel.hpp"

namespace proofpipe::ec {
namespace {

bool reduced(const ff::Fq& a) { return !ff::limbs_geq(a.mont(), ff::MontConsts<ff::FqParams>::kP); }
bool reduced(const ff::Fq2& a) { return reduced(a.c0) && reduced(a.c1); }

// nullptr when the point passes, else the reason.
template <class Cfg>
const char* check_point(const Affine<Cfg>& p, PointCheck check) {
  if (!reduced(p.x) || !reduced(p.y)) return "coordinate not reduced modulo q";
  if (p.is_identity()) return nullptr;
  if (!p.on_curve()) return "not on the curve";
  if (check == PointCheck::kSubgroup && !in_subgroup(p)) return "not in the r-order subgroup";
  return nullptr;
}

template <class Cfg>
Result<Affine<Cfg>> read_point(std::span<const uint8_t> bytes, PointCheck check, const char* group) {
  using A = Affine<Cfg>;
  if (bytes.size() != sizeof(A)) {
    return make_error(ErrorCode::kInvalidArgument, "{} point: {} bytes, expected {}", group, bytes.size(), sizeof(A));
  }
  A p;
  std::memcpy(&p, bytes.data(), sizeof(A));  // host is little-endian, layout == encoding
  if (const char* why = check_point(p, check)) return make_error(ErrorCode::kBadFormat, "{} point: {}", group, why);
  return p;
}

template <class Cfg>
Status validate(std::span<const Affine<Cfg>> points, PointCheck check, const char* group) {
  // The smallest failing index is reported, so the message is deterministic
  // when one point is bad. Failures are rare: a mutex is enough there.
  std::atomic<size_t> bad{points.size()};
  const char* why = nullptr;
  std::mutex mu;
  parallel_for_range(points.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < bad.load(std::memory_order_relaxed); ++i) {
      if (const char* w = check_point(points[i], check)) {
        std::lock_guard<std::mutex> lock(mu);
        if (i < bad.load()) {
          bad.store(i);
          why = w;
        }
        return;
      }
    }
  });
  if (bad.load() == points.size()) return Status::ok();
  return make_error(ErrorCode::kBadFormat, "{} point {}: {}", group, bad.load(), why);
}

}  // namespace

Result<G1Affine> read_g1(std::span<const uint8_t> bytes, PointCheck check) {
  return read_point<G1Cfg>(bytes, check, "g1");
}
Result<G2Affine> read_g2(std::span<const uint8_t> bytes, PointCheck check) {
  return read_point<G2Cfg>(bytes, check, "g2");
}

void write_g1(const G1Affine& p, std::span<uint8_t, kG1Bytes> out) { std::memcpy(out.data(), &p, kG1Bytes); }
void write_g2(const G2Affine& p, std::span<uint8_t, kG2Bytes> out) { std::memcpy(out.data(), &p, kG2Bytes); }

Status validate_g1(std::span<const G1Affine> points, PointCheck check) { return validate<G1Cfg>(points, check, "g1"); }
Status validate_g2(std::span<const G2Affine> points, PointCheck check) { return validate<G2Cfg>(points, check, "g2"); }

}  // namespace proofpipe::ec
