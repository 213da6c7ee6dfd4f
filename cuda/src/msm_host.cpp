// Host-memory entry points of the CUDA MSM (proofpipe/cuda/msm.hpp): upload,
// run msm_*_device (msm.cuh), free. And the benchmark timing (whole MSMs,
// and one MSM's phases) with resident random inputs. Host compiler only (fmt for messages, the CPU curve code
// for the benchmark's points).
#include "proofpipe/cuda/msm.hpp"

#include <algorithm>
#include <random>
#include <type_traits>
#include <vector>

#include "check.hpp"
#include "msm_device.hpp"
#include "proofpipe/cuda/device.hpp"
#include "proofpipe/ec/batch_normalize.hpp"
#include "timing.hpp"

namespace proofpipe::cuda {
namespace {

template <class Cfg>
Result<ec::Jacobian<Cfg>> msm_from_host(std::span<const ec::Affine<Cfg>> points, std::span<const bls12_381::Fr> scalars,
                                        const MsmTuning& tuning) {
  if (points.size() != scalars.size())
    return make_error(ErrorCode::kInvalidArgument, "cuda msm: {} points, {} scalars", points.size(), scalars.size());
  const size_t n = points.size();
  if (n == 0) return ec::Jacobian<Cfg>::identity();
  if (device_count() == 0) return make_error(ErrorCode::kUnavailable, "cuda msm: no CUDA device");
  Stream stream;
  PP_RETURN_IF_ERROR(stream.create());
  DeviceBuffer<ec::Affine<Cfg>> dp;
  DeviceBuffer<bls12_381::Fr> ds;
  PP_RETURN_IF_ERROR(dp.allocate(n));
  PP_RETURN_IF_ERROR(ds.allocate(n));
  PP_RETURN_IF_ERROR(dp.upload(points.data(), n, stream.get()));
  PP_RETURN_IF_ERROR(ds.upload(scalars.data(), n, stream.get()));
  MsmScratch scratch;
  return device_msm<Cfg>(dp.data(), ds.data(), n, scratch, stream.get(), tuning);
}

// Resident benchmark inputs: 2^min(log_n, 18) distinct points (consecutive
// multiples of a random point, one inversion), expanded on the device to
// n = 2^log_n by repeating and negating (the sorted gather still spans
// 24 MB (G1) of distinct points), and n random scalars.
template <class Cfg>
struct BenchInputs {
  Stream stream;
  DeviceBuffer<ec::Affine<Cfg>> points;
  DeviceBuffer<bls12_381::Fr> scalars;
  size_t n = 0;

  Status make(unsigned log_n, const ScalarMix& mix) {
    if (log_n > 28) return make_error(ErrorCode::kInvalidArgument, "msm bench: log_n {} (<= 28)", log_n);
    if (device_count() == 0) return make_error(ErrorCode::kUnavailable, "msm bench: no CUDA device");
    n = size_t(1) << log_n;
    const size_t nb = size_t(1) << std::min(log_n, 18u);
    std::mt19937_64 rng(0x5eed'0000 + log_n);
    const auto g = bls12_381::generator<Cfg>();
    std::vector<ec::Jacobian<Cfg>> jac(nb);
    ec::Jacobian<Cfg> acc = bls12_381::scalar_mul(ec::Jacobian<Cfg>::from_affine(g), bls12_381::Fr::random(rng));
    for (auto& j : jac) j = acc = acc.add_affine(g);
    std::vector<ec::Affine<Cfg>> base(nb);
    ec::batch_to_affine<Cfg>(jac, base);

    PP_RETURN_IF_ERROR(stream.create());
    DeviceBuffer<ec::Affine<Cfg>> dbase;
    PP_RETURN_IF_ERROR(dbase.allocate(nb));
    PP_RETURN_IF_ERROR(points.allocate(n));
    PP_RETURN_IF_ERROR(scalars.allocate(n));
    PP_RETURN_IF_ERROR(dbase.upload(base.data(), nb, stream.get()));
    if constexpr (std::is_same_v<Cfg, bls12_381::G1Cfg>)
      PP_RETURN_IF_ERROR(expand_points_g1(dbase.data(), nb, points.data(), n, stream.get()));
    else
      PP_RETURN_IF_ERROR(expand_points_g2(dbase.data(), nb, points.data(), n, stream.get()));
    PP_RETURN_IF_ERROR(random_scalars(scalars.data(), n, rng(), stream.get()));
    PP_RETURN_IF_ERROR(mix_scalars(scalars.data(), n, rng(), mix.zero_pct, mix.one_pct, stream.get()));
    return stream.sync();
  }
  Status run(MsmScratch& scratch, const MsmTuning& tuning = {}) {
    return device_msm<Cfg>(points.data(), scalars.data(), n, scratch, stream.get(), tuning).status();
  }
};

template <class Cfg>
Result<double> time_on(BenchInputs<Cfg>& in, MsmScratch& scratch, int reps, const MsmTuning& tuning) {
  if (reps < 1) return make_error(ErrorCode::kInvalidArgument, "time_msm: reps {} (>= 1)", reps);
  // median_ms's warm-up run allocates what the plan needs.
  return median_ms(reps, [&] { return wall_time_ms([&] { return in.run(scratch, tuning); }); });
}

template <class Cfg>
Result<double> time_msm(unsigned log_n, int reps, const ScalarMix& mix) {
  BenchInputs<Cfg> in;
  PP_RETURN_IF_ERROR(in.make(log_n, mix));
  MsmScratch scratch;
  return time_on(in, scratch, reps, MsmTuning{});
}

template <class Cfg>
Result<MsmPhases> msm_phases(unsigned log_n, const ScalarMix& mix) {
  BenchInputs<Cfg> in;
  PP_RETURN_IF_ERROR(in.make(log_n, mix));
  MsmScratch scratch;
  PP_RETURN_IF_ERROR(in.run(scratch));  // warm-up: allocations, module load
  MsmPhases phases;
  scratch.phases = &phases;
  PP_RETURN_IF_ERROR(in.run(scratch));
  return phases;
}

}  // namespace

Result<bls12_381::G1> msm_g1(std::span<const bls12_381::G1Affine> points, std::span<const bls12_381::Fr> scalars) {
  return msm_from_host<bls12_381::G1Cfg>(points, scalars, MsmTuning{});
}
Result<bls12_381::G2> msm_g2(std::span<const bls12_381::G2Affine> points, std::span<const bls12_381::Fr> scalars) {
  return msm_from_host<bls12_381::G2Cfg>(points, scalars, MsmTuning{});
}
Result<bls12_381::G1> msm_g1(std::span<const bls12_381::G1Affine> points, std::span<const bls12_381::Fr> scalars,
                             const MsmTuning& tuning) {
  return msm_from_host<bls12_381::G1Cfg>(points, scalars, tuning);
}
Result<bls12_381::G2> msm_g2(std::span<const bls12_381::G2Affine> points, std::span<const bls12_381::Fr> scalars,
                             const MsmTuning& tuning) {
  return msm_from_host<bls12_381::G2Cfg>(points, scalars, tuning);
}

Result<double> time_msm_g1_ms(unsigned log_n, int reps, const ScalarMix& mix) {
  return time_msm<bls12_381::G1Cfg>(log_n, reps, mix);
}
Result<double> time_msm_g2_ms(unsigned log_n, int reps, const ScalarMix& mix) {
  return time_msm<bls12_381::G2Cfg>(log_n, reps, mix);
}

Result<std::vector<Result<double>>> sweep_msm_g1_ms(unsigned log_n, int reps, std::span<const MsmTuning> plans) {
  BenchInputs<bls12_381::G1Cfg> in;
  PP_RETURN_IF_ERROR(in.make(log_n, ScalarMix{}));
  std::vector<Result<double>> out;
  for (const MsmTuning& t : plans) {
    MsmScratch scratch;  // each plan's own buffers, freed before the next
    out.push_back(time_on(in, scratch, reps, t));
  }
  return out;
}
Result<MsmPhases> msm_phases_g1(unsigned log_n, const ScalarMix& mix) {
  return msm_phases<bls12_381::G1Cfg>(log_n, mix);
}
Result<MsmPhases> msm_phases_g2(unsigned log_n, const ScalarMix& mix) {
  return msm_phases<bls12_381::G2Cfg>(log_n, mix);
}

}  // namespace proofpipe::cuda
