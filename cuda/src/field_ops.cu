// Batched Fr/Fq operations and the multiplication-rate benchmark on the
// device (see field_ops.hpp). Kernels are thin wrappers around the PP_HD
// bodies of field_ops.hpp.
#include "proofpipe/cuda/field_ops.hpp"

#include <string>

#include "check.hpp"
#include "timing.hpp"

namespace proofpipe::cuda {
namespace {

template <FieldOp Op, class F>
__global__ void field_op_kernel(const F* a, const F* b, F* out, size_t n) {
  field_op_body<Op>(a, b, out, n, blockIdx.x * size_t(blockDim.x) + threadIdx.x);
}

template <MulPath Path, class F>
__global__ void mul_chain_kernel(F* x, const F* y, unsigned len, size_t n) {
  mul_chain_body<Path>(x, y, len, n, blockIdx.x * size_t(blockDim.x) + threadIdx.x);
}

template <class F>
__global__ void chain_init_kernel(F* x, F* y, size_t n) {
  chain_init_body(x, y, n, blockIdx.x * size_t(blockDim.x) + threadIdx.x);
}

template <FieldOp Op, class F>
Status launch_op(const F* a, const F* b, F* out, size_t n) {
  field_op_kernel<Op><<<grid_for(n), kBlock>>>(a, b, out, n);
  return launch_status(field_op_name(Op));
}

template <class F>
Status batch(FieldOp op, const F* a, const F* b, F* out, size_t n) {
  if (n == 0) return Status::ok();
  const bool unary = op == FieldOp::kSqr || op == FieldOp::kSqrOperator;
  if (a == nullptr || out == nullptr || (b == nullptr && !unary)) {
    return Status(ErrorCode::kInvalidArgument, std::string("field batch ") + field_op_name(op) + ": null input");
  }
  DeviceBuffer<F> da, db, dout;
  PP_RETURN_IF_ERROR(da.allocate(n));
  PP_RETURN_IF_ERROR(dout.allocate(n));
  PP_RETURN_IF_ERROR(da.upload(a, n, nullptr));
  const F* dbp = da.data();  // a square without b: b is ignored
  if (b != nullptr) {
    PP_RETURN_IF_ERROR(db.allocate(n));
    PP_RETURN_IF_ERROR(db.upload(b, n, nullptr));
    dbp = db.data();
  }
  switch (op) {
    case FieldOp::kMul: PP_RETURN_IF_ERROR(launch_op<FieldOp::kMul>(da.data(), dbp, dout.data(), n)); break;
    case FieldOp::kSqr: PP_RETURN_IF_ERROR(launch_op<FieldOp::kSqr>(da.data(), dbp, dout.data(), n)); break;
    case FieldOp::kAdd: PP_RETURN_IF_ERROR(launch_op<FieldOp::kAdd>(da.data(), dbp, dout.data(), n)); break;
    case FieldOp::kSub: PP_RETURN_IF_ERROR(launch_op<FieldOp::kSub>(da.data(), dbp, dout.data(), n)); break;
    case FieldOp::kMulPortable:
      PP_RETURN_IF_ERROR(launch_op<FieldOp::kMulPortable>(da.data(), dbp, dout.data(), n));
      break;
    case FieldOp::kMulOperator:
      PP_RETURN_IF_ERROR(launch_op<FieldOp::kMulOperator>(da.data(), dbp, dout.data(), n));
      break;
    case FieldOp::kSqrOperator:
      PP_RETURN_IF_ERROR(launch_op<FieldOp::kSqrOperator>(da.data(), dbp, dout.data(), n));
      break;
    case FieldOp::kAddOperator:
      PP_RETURN_IF_ERROR(launch_op<FieldOp::kAddOperator>(da.data(), dbp, dout.data(), n));
      break;
    case FieldOp::kSubOperator:
      PP_RETURN_IF_ERROR(launch_op<FieldOp::kSubOperator>(da.data(), dbp, dout.data(), n));
      break;
  }
  PP_RETURN_IF_ERROR(dout.download(out, n, nullptr));
  PP_CUDA_TRY(cudaDeviceSynchronize());
  return Status::ok();
}

template <class F, MulPath Path>
Result<double> mul_rate(unsigned chain, size_t threads) {
  DeviceBuffer<F> x, y;
  PP_RETURN_IF_ERROR(x.allocate(threads));
  PP_RETURN_IF_ERROR(y.allocate(threads));
  chain_init_kernel<<<grid_for(threads), kBlock>>>(x.data(), y.data(), threads);
  PP_CUDA_LAUNCHED("chain_init_kernel");
  // Median of 3 timed launches after one warm-up launch (module load, clocks).
  EventPair ev;
  PP_ASSIGN_OR_RETURN(const double ms, median_ms(3, [&] {
                        return ev.time_ms(nullptr, [&] {
                          mul_chain_kernel<Path><<<grid_for(threads), kBlock>>>(x.data(), y.data(), chain, threads);
                          return launch_status("mul_chain_kernel");
                        });
                      }));
  if (!(ms > 0)) return Status(ErrorCode::kInternal, "time_mul_rate: the timed launch took no measurable time");
  return double(threads) * double(chain) / (double(ms) * 1e-3);
}

}  // namespace

Status fr_mul_batch(const bls12_381::Fr* a, const bls12_381::Fr* b, bls12_381::Fr* out, size_t n) {
  return batch(FieldOp::kMulOperator, a, b, out, n);
}
Status fr_batch(FieldOp op, const bls12_381::Fr* a, const bls12_381::Fr* b, bls12_381::Fr* out, size_t n) {
  return batch(op, a, b, out, n);
}
Status fq_batch(FieldOp op, const bls12_381::Fq* a, const bls12_381::Fq* b, bls12_381::Fq* out, size_t n) {
  return batch(op, a, b, out, n);
}

Result<double> time_mul_rate(FieldKind kind, MulPath path, unsigned chain, size_t threads) {
  if (chain == 0) chain = 2048;
  if (threads == 0) {
    PP_ASSIGN_OR_RETURN(DeviceInfo info, device_info());
    // Two full waves at the hardware's 2048 resident threads per SM (fewer
    // fit when registers limit occupancy; the rest queue).
    threads = size_t(info.multiprocessors) * 2048 * 2;
  }
  if (kind == FieldKind::kFr) {
    return path == MulPath::kPtx ? mul_rate<bls12_381::Fr, MulPath::kPtx>(chain, threads)
                                 : mul_rate<bls12_381::Fr, MulPath::kPortable>(chain, threads);
  }
  return path == MulPath::kPtx ? mul_rate<bls12_381::Fq, MulPath::kPtx>(chain, threads)
                               : mul_rate<bls12_381::Fq, MulPath::kPortable>(chain, threads);
}

}  // namespace proofpipe::cuda
