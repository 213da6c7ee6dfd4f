// libproofpipe's prover object: a zkey of either curve (its base-field
// prime decides) held as formats::ZkeyT over an owned copy, the caller's
// buffer (borrowed) or a file mapping, and groth16::prove_checked for each witness, so the library
// proves exactly as `proofpipe prove` does, verification included.
#include "prover_object.hpp"

#include <algorithm>

#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/mapped_file.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/prove_checked.hpp"

namespace proofpipe::lib {
namespace {

// The names buffers go by in messages ("zkey '(buffer)': ...").
constexpr const char* kZkeyBufferName = "(buffer)";
constexpr const char* kWtnsBufferName = "(buffer)";

template <class C>
class ProverFor final : public Prover {
 public:
  explicit ProverFor(formats::ZkeyT<C> zkey)
      : zkey_(std::move(zkey)), pk_(groth16::proving_key_of(zkey_)), vk_(formats::verification_key_from_zkey(zkey_)) {}

  // The NTT domain's table is built once, here, rather than by the first
  // proofs (several threads could otherwise ask for it at once).
  Status prepare() const {
    auto backend = groth16::make_cpu_backend<C>();
    return backend->prepare(pk_);
  }

  bool prove(std::span<const uint8_t> wtns, ProveOutput& out, ProveFailure& failure) const override {
    auto witness = formats::load_wtns_from<C>(formats::MappedFile::view_of(wtns, kWtnsBufferName));
    if (!witness) {
      failure.status = witness.status();
      return false;
    }
    // The length rule on its own first: the C interface gives it a code.
    if (witness->values.size() != zkey_.n_vars()) {
      failure.status = formats::check_witness_matches(zkey_, *witness);
      failure.wrong_witness_length = true;
      return false;
    }
    // A backend per call: the CPU backend is cheap to make, and no state
    // is then shared between concurrent proofs.
    auto backend = groth16::make_cpu_backend<C>();
    auto proof = groth16::prove_checked<C>(*backend, zkey_, pk_, vk_, *witness);
    if (!proof) {
      failure.status = proof.status();
      return false;
    }
    const auto pub = std::span<const typename C::Fr>(witness->values).subspan(1, pk_.n_public);
    out.proof_json = formats::proof_to_json(*proof);
    out.public_json = formats::public_to_json<C>(pub);
    return true;
  }

  uint32_t n_public() const override { return zkey_.n_public(); }

 private:
  formats::ZkeyT<C> zkey_;
  groth16::ProvingKeyT<C> pk_;  // views into zkey_ (which does not move again)
  formats::VerificationKeyT<C> vk_;
};

Result<std::unique_ptr<Prover>> make_prover(formats::MappedFile file) {
  PP_ASSIGN_OR_RETURN(const curves::CurveId curve, formats::zkey_curve(file));
  return curves::with_curve(curve, [&](auto c) -> Result<std::unique_ptr<Prover>> {
    using C = decltype(c);
    PP_ASSIGN_OR_RETURN(auto zkey, formats::load_zkey_from<C>(std::move(file)));
    auto prover = std::make_unique<ProverFor<C>>(std::move(zkey));
    PP_RETURN_IF_ERROR(prover->prepare());
    return std::unique_ptr<Prover>(std::move(prover));
  });
}

Result<uint32_t> n_public_of(formats::MappedFile file) {
  PP_ASSIGN_OR_RETURN(const curves::CurveId curve, formats::zkey_curve(file));
  return curves::with_curve(curve, [&](auto c) -> Result<uint32_t> {
    PP_ASSIGN_OR_RETURN(auto zkey, formats::load_zkey_from<decltype(c)>(std::move(file), {.points = false}));
    return zkey.n_public();
  });
}

// Decimal digits of the largest element of field F (its modulus minus one).
template <class F>
size_t max_digits() {
  return formats::to_decimal(-F::one()).size();
}

// proof.json's longest form for curve C: the identity proof's text (every
// number one digit) with each of the eight affine coordinates at full
// length. The third coordinates stay one digit ("1"/"0") in every proof.
template <class C>
size_t proof_json_max_size_for() {
  const formats::ProofT<C> zero{C::G1Affine::identity(), C::G2Affine::identity(), C::G1Affine::identity()};
  constexpr size_t kCoordinates = 2 + 4 + 2;  // pi_a x, y; pi_b x, y (two each); pi_c x, y
  return formats::proof_to_json(zero).size() + kCoordinates * (max_digits<typename C::Fq>() - 1) + 1;
}

}  // namespace

Result<std::unique_ptr<Prover>> Prover::from_buffer(std::span<const uint8_t> zkey, KeyBytes bytes) {
  if (bytes == KeyBytes::kBorrow) return make_prover(formats::MappedFile::view_of(zkey, kZkeyBufferName));
  PP_ASSIGN_OR_RETURN(formats::MappedFile copy, formats::MappedFile::copy_of(zkey, kZkeyBufferName));
  return make_prover(std::move(copy));
}

Result<std::unique_ptr<Prover>> Prover::from_file(const std::string& path) {
  auto file = formats::MappedFile::open(path);
  if (!file) return Status(file.status().code(), "zkey " + file.status().message());
  return make_prover(std::move(file).value());
}

Result<uint32_t> zkey_n_public(std::span<const uint8_t> zkey) {
  return n_public_of(formats::MappedFile::view_of(zkey, kZkeyBufferName));
}

Result<uint32_t> zkey_n_public(const std::string& path) {
  auto file = formats::MappedFile::open(path);
  if (!file) return Status(file.status().code(), "zkey " + file.status().message());
  return n_public_of(std::move(file).value());
}

size_t public_json_max_size(uint32_t n_public) {
  // "[\n", then per signal ` "<digits>",\n` (no comma on the last), "]",
  // NUL; "[]" when there are none. Fr of both curves is below 2^255.
  const size_t digits = std::max(max_digits<curves::Bls12_381::Fr>(), max_digits<curves::Bn254::Fr>());
  return size_t{n_public} * (digits + 5) + 4;
}

size_t proof_json_max_size() {
  return std::max(proof_json_max_size_for<curves::Bls12_381>(), proof_json_max_size_for<curves::Bn254>());
}

}  // namespace proofpipe::lib
