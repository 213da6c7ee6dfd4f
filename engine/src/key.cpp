// PipelineKeyT<C>: the one implementation of PipelineKey (key.hpp),
// instantiated for both curves by load_pipeline_key's with_curve.
#include "proofpipe/engine/key.hpp"

#include <algorithm>
#include <cstring>

#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::engine {
namespace {

// FrWords <-> C::Fr: the same 32 bytes (memcpy, no aliasing). An empty span
// may hold a null pointer, and memcpy from or to null is undefined even for
// 0 bytes (UBSan's finding: intake checks a witness with no prefix wanted).
template <class Fr>
std::vector<Fr> typed(std::span<const FrWords> words) {
  static_assert(sizeof(Fr) == sizeof(FrWords) && std::is_trivially_copyable_v<Fr>);
  std::vector<Fr> out(words.size());
  if (!words.empty()) std::memcpy(static_cast<void*>(out.data()), words.data(), words.size_bytes());
  return out;
}
template <class Fr>
void untyped(std::span<const Fr> values, std::span<FrWords> out) {
  const size_t n = std::min(values.size(), out.size());
  if (n != 0) std::memcpy(out.data(), values.data(), n * sizeof(FrWords));
}

template <class C>
class PipelineKeyT final : public PipelineKey {
 public:
  using Fr = typename C::Fr;
  using Proof = formats::ProofT<C>;

  explicit PipelineKeyT(formats::ZkeyT<C> zkey)
      : zkey_(std::move(zkey)),
        vk_(formats::verification_key_from_zkey(
            zkey_, groth16::alphabeta_of<C>(zkey_.header().alpha1, zkey_.header().beta2))) {}

  curves::CurveId curve() const override { return curves::curve_id<C>(); }
  const std::filesystem::path& path() const override { return zkey_.path(); }
  uint32_t n_vars() const override { return zkey_.n_vars(); }
  uint32_t n_public() const override { return zkey_.n_public(); }
  uint32_t domain_size() const override { return zkey_.domain_size(); }
  uint64_t constraints() const override {
    uint32_t top = 0;
    for (const auto& c : zkey_.coefs()) top = std::max(top, c.constraint + 1);
    const uint64_t extra = uint64_t(zkey_.n_public()) + 1;
    return top > extra ? top - extra : 0;
  }
  KeySizes sizes() const override { return key_sizes_of(zkey_); }
  size_t proof_bytes() const override { return sizeof(Proof); }

  Status check_witness(const std::filesystem::path& wtns, std::span<FrWords> pub) const override {
    std::vector<Fr> prefix(pub.size());
    PP_RETURN_IF_ERROR(formats::check_wtns_for(zkey_, wtns, std::span<Fr>(prefix)));
    untyped<Fr>(prefix, pub);
    return Status::ok();
  }
  Status read_public(const std::filesystem::path& wtns, std::span<FrWords> pub) const override {
    std::vector<Fr> prefix(pub.size() + 1);
    PP_ASSIGN_OR_RETURN(const uint32_t n, formats::read_wtns_prefix<C>(wtns, std::span<Fr>(prefix)));
    (void)n;
    untyped<Fr>(std::span<const Fr>(prefix).subspan(1), pub);
    return Status::ok();
  }

  Result<groth16::Verdict> verify(std::span<const FrWords> pub, std::string_view proof) const override {
    PP_ASSIGN_OR_RETURN(const Proof p, decode(proof));
    return groth16::verify<C>(vk_, typed<Fr>(pub), p);
  }
  Status write_outputs(const std::filesystem::path& proof_file, const std::filesystem::path& public_file,
                       std::string_view proof, std::span<const FrWords> pub) const override {
    PP_ASSIGN_OR_RETURN(const Proof p, decode(proof));
    const std::vector<Fr> values = typed<Fr>(pub);
    return formats::write_proof_and_public<C>(proof_file, p, public_file, std::span<const Fr>(values));
  }
  Result<std::string> proof_json(std::string_view proof) const override {
    PP_ASSIGN_OR_RETURN(const Proof p, decode(proof));
    return formats::proof_to_json<C>(p);
  }
  std::string public_json(std::span<const FrWords> pub) const override {
    const std::vector<Fr> values = typed<Fr>(pub);
    return formats::public_to_json<C>(std::span<const Fr>(values));
  }
  Result<std::vector<FrWords>> read_public_json(const std::filesystem::path& file) const override {
    PP_ASSIGN_OR_RETURN(const std::vector<Fr> values, formats::read_public_json<C>(file));
    std::vector<FrWords> out(values.size());
    untyped<Fr>(values, out);
    return out;
  }
  Result<groth16::Verdict> verify_proof_file(const std::filesystem::path& proof_file,
                                             std::span<const FrWords> pub) const override {
    PP_ASSIGN_OR_RETURN(const Proof p, formats::read_proof_json<C>(proof_file));
    return groth16::verify<C>(vk_, typed<Fr>(pub), p);
  }

 private:
  // The Scheduler checked the size (a PROOF body of another size is
  // malformed); this check keeps a bug from reading past the bytes.
  static Result<Proof> decode(std::string_view bytes) {
    if (bytes.size() != sizeof(Proof)) {
      return make_error(ErrorCode::kInternal, "a {} proof is {} bytes, not {}", C::kName, sizeof(Proof), bytes.size());
    }
    Proof p;
    std::memcpy(static_cast<void*>(&p), bytes.data(), sizeof p);
    return p;
  }

  formats::ZkeyT<C> zkey_;
  groth16::VerificationKeyT<C> vk_;
};

}  // namespace

Result<std::shared_ptr<const PipelineKey>> load_pipeline_key(const std::filesystem::path& path) {
  PP_ASSIGN_OR_RETURN(const curves::CurveId curve, formats::zkey_curve(path));
  return curves::with_curve(curve, [&](auto c) -> Result<std::shared_ptr<const PipelineKey>> {
    using C = decltype(c);
    PP_ASSIGN_OR_RETURN(formats::ZkeyT<C> zkey,
                        formats::load_zkey<C>(path, {.points = false, .release_coefficients = true}));
    return std::shared_ptr<const PipelineKey>(std::make_shared<const PipelineKeyT<C>>(std::move(zkey)));
  });
}

}  // namespace proofpipe::engine
