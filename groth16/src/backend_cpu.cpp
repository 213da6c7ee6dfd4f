// The CPU backend (the reference every other backend is tested against) and
// the backend factory. NTT and MSM are core/'s multithreaded implementations.
#include <cstring>

#include "proofpipe/groth16/backend.hpp"
#include "proofpipe/msm/msm.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace proofpipe::groth16 {
namespace {

bool is_power_of_two(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

class CpuBackend final : public ProverBackend {
 public:
  std::string_view name() const override { return "cpu"; }

  Status compute_h(std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c) override {
    if (a.size() != b.size() || a.size() != c.size() || !is_power_of_two(a.size()) ||
        a.size() > (size_t(1) << ntt::kMaxLogSize))
      return make_error(ErrorCode::kInvalidArgument, "compute_h: sizes {}, {}, {} (need equal powers of two <= 2^{})",
                        a.size(), b.size(), c.size(), ntt::kMaxLogSize);
    ntt::compute_h_odd_coset(a, b, c);
    return Status::ok();
  }

  Result<ec::G1> msm_g1(std::span<const ec::G1Affine> points, std::span<const ff::Fr> scalars) override {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "msm_g1: {} points, {} scalars", points.size(), scalars.size());
    return msm::msm_g1(points, scalars);
  }

  Result<ec::G2> msm_g2(std::span<const ec::G2Affine> points, std::span<const ff::Fr> scalars) override {
    if (points.size() != scalars.size())
      return make_error(ErrorCode::kInvalidArgument, "msm_g2: {} points, {} scalars", points.size(), scalars.size());
    return msm::msm_g2(points, scalars);
  }
};

}  // namespace

Result<BackendKind> parse_backend_kind(std::string_view text) {
  if (text == "auto") return BackendKind::kAuto;
  if (text == "cpu") return BackendKind::kCpu;
  if (text == "cuda") return BackendKind::kCuda;
  return make_error(ErrorCode::kInvalidArgument, "backend '{}': expected auto, cpu or cuda", text);
}

std::unique_ptr<ProverBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

Result<std::unique_ptr<ProverBackend>> make_backend(BackendKind kind) {
  // The CUDA backend is linked into the GPU worker only (cuda/); in this
  // library kAuto means the CPU and kCuda is unavailable.
  if (kind == BackendKind::kCuda)
    return make_error(ErrorCode::kUnavailable,
                      "the CUDA backend is not linked into this program: it runs in the GPU worker of "
                      "`proofpipe run --backend cuda`");
  return make_cpu_backend();
}

}  // namespace proofpipe::groth16
