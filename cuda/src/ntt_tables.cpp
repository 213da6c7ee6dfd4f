// The NTT's device tables (see ntt_device.hpp): built on the host with the
// table functions of proofpipe/cuda/ntt_kernels.hpp (the same ones the host
// emulation tests use), uploaded once per size, cached for the process.
// Host compiler: uses the thread pool (parallel_for) for the big table.
#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ntt_device.hpp"
#include "proofpipe/common/parallel.hpp"
#include "proofpipe/cuda/ntt_kernels.hpp"
#include "proofpipe/ntt/ntt.hpp"

namespace proofpipe::cuda {
namespace {

using bls12_381::Fr;

// Device copy of a host vector, freed again if anything later fails.
struct Upload {
  Fr* p = nullptr;
  size_t n = 0;
  ~Upload() {
    if (p != nullptr) (void)cudaFree(p);
  }
  Status alloc(size_t count) {
    n = count;
    return cuda_status(cudaMalloc(reinterpret_cast<void**>(&p), count * sizeof(Fr)), "cudaMalloc(ntt table)");
  }
  Status put(const std::vector<Fr>& v) {
    PP_RETURN_IF_ERROR(alloc(v.size()));
    return cuda_status(cudaMemcpy(p, v.data(), v.size() * sizeof(Fr), cudaMemcpyHostToDevice), "cudaMemcpy(ntt table)");
  }
  Fr* release() { return std::exchange(p, nullptr); }
};

// w^j for j in [0, n/2], in 2^20-entry (32 MiB) host chunks so that 2^28 does
// not need a 4 GiB host staging copy; each chunk is filled by the pool in
// 4096-entry pieces (one pow each, then a multiply chain).
Status upload_twiddles(Upload& up, unsigned log_n) {
  const uint64_t count = (uint64_t(1) << (log_n - 1)) + 1;
  PP_RETURN_IF_ERROR(up.alloc(count));
  const Fr omega = ntt::root_of_unity<Fr>(log_n);
  constexpr uint64_t kChunk = uint64_t(1) << 20, kPiece = 4096;
  std::vector<Fr> host(std::min(count, kChunk));
  for (uint64_t c0 = 0; c0 < count; c0 += kChunk) {
    const uint64_t len = std::min(kChunk, count - c0);
    parallel_for((len + kPiece - 1) / kPiece, [&](size_t piece) {
      const uint64_t b = c0 + piece * kPiece, e = std::min(c0 + len, b + kPiece);
      nttk::twiddle_range(host.data() + (b - c0), omega, b, e);
    });
    PP_RETURN_IF_ERROR(cuda_status(cudaMemcpy(up.p + c0, host.data(), len * sizeof(Fr), cudaMemcpyHostToDevice),
                                   "cudaMemcpy(ntt twiddles)"));
  }
  return Status::ok();
}

struct Cache {
  std::mutex mu;
  const Fr* lvl_fwd = nullptr;
  const Fr* lvl_inv = nullptr;
  std::array<std::unique_ptr<NttTables>, ntt::kMaxLogSize + 1> sizes;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: the tables outlive static destruction order
  return *c;
}

}  // namespace

Result<const NttTables*> ntt_tables(unsigned log_n) {
  if (log_n > ntt::kMaxLogSize)
    return Status(ErrorCode::kInvalidArgument, "ntt: size 2^" + std::to_string(log_n) + " above 2^28");
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.sizes[log_n]) return c.sizes[log_n].get();

  if (c.lvl_fwd == nullptr) {
    Upload f, i;
    PP_RETURN_IF_ERROR(f.put(nttk::level_table(false)));
    PP_RETURN_IF_ERROR(i.put(nttk::level_table(true)));
    c.lvl_fwd = f.release();
    c.lvl_inv = i.release();
  }
  Upload tw, blk, off;
  if (log_n > nttk::kTileBits) PP_RETURN_IF_ERROR(upload_twiddles(tw, log_n));
  std::vector<Fr> hb, ho;
  nttk::scale_tables(log_n, hb, ho);
  PP_RETURN_IF_ERROR(blk.put(hb));
  PP_RETURN_IF_ERROR(off.put(ho));
  // cudaMemcpy from pageable memory may return before its DMA lands; the
  // kernels run on other (non-blocking) streams, so wait for it here once.
  PP_RETURN_IF_ERROR(cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize(ntt tables)"));

  auto t = std::make_unique<NttTables>();
  t->bytes = (tw.n + blk.n + off.n) * sizeof(Fr);
  t->tw = tw.release();
  t->blk_scale = blk.release();
  t->off_scale = off.release();
  t->lvl_fwd = c.lvl_fwd;
  t->lvl_inv = c.lvl_inv;
  t->inv_n = Fr::from_u64(uint64_t(1) << log_n).inverse();
  c.sizes[log_n] = std::move(t);
  return c.sizes[log_n].get();
}

}  // namespace proofpipe::cuda
