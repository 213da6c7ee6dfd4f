// snarkjs JSON writers/readers over nlohmann::ordered_json (insertion order =
// snarkjs's key order). Every nlohmann call that can throw is inside a
// try/catch in this file; nothing escapes the API.
#include "proofpipe/formats/proof_json.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "proofpipe/common/safe_file.hpp"
#include "proofpipe/formats/bounded_json.hpp"
#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/mapped_file.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::formats {

namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kProtocol = "groth16";

// ----- writing -----

template <class G1Affine>
Json g1_json(const G1Affine& p) {
  if (p.is_identity()) return Json::array({"0", "1", "0"});
  return Json::array({to_decimal(p.x), to_decimal(p.y), "1"});
}
template <class Fq2>
Json fq2_json(const Fq2& v) {
  return Json::array({to_decimal(v.c0), to_decimal(v.c1)});
}
template <class G2Affine>
Json g2_json(const G2Affine& p) {
  if (p.is_identity()) return Json::array({Json::array({"0", "0"}), Json::array({"1", "0"}), Json::array({"0", "0"})});
  return Json::array({fq2_json(p.x), fq2_json(p.y), Json::array({"1", "0"})});
}

// snarkjs: JSON.stringify(obj, null, 1), no trailing newline.
std::string dump(const Json& j) { return j.dump(1); }

// ----- reading -----

// Messages from third-party code are flattened to one line.
std::string one_line(std::string s) {
  for (char& ch : s) {
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  return s;
}

template <class C>
class Reader {
 public:
  using Fq = typename C::Fq;
  using Fq2 = typename C::Fq2;

  explicit Reader(std::string_view what) : what_(what) {}

  Status error(const std::string& where, const std::string& msg) const {
    return Status(ErrorCode::kBadFormat,
                  one_line(std::string(what_) + ": " + (where.empty() ? "" : where + ": ") + msg));
  }

  Result<const Json*> field(const Json& obj, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) return error("", fmt::format("missing \"{}\"", key));
    return &*it;
  }

  Status array_of(const Json& j, size_t n, const std::string& where) const {
    if (!j.is_array() || j.size() != n) return error(where, fmt::format("expected an array of {}", n));
    return Status::ok();
  }

  template <class F>
  Result<F> number(const Json& j, const std::string& where) const {
    if (!j.is_string()) return error(where, "expected a decimal string");
    const std::string& s = j.get_ref<const std::string&>();
    Result<F> v = from_decimal<F>(s);
    if (!v.is_ok()) return error(where, v.status().message());
    return v;
  }

  Result<Fq2> fq2(const Json& j, const std::string& where) const {
    PP_RETURN_IF_ERROR(array_of(j, 2, where));
    PP_ASSIGN_OR_RETURN(Fq c0, number<Fq>(j[0], where + "[0]"));
    PP_ASSIGN_OR_RETURN(Fq c1, number<Fq>(j[1], where + "[1]"));
    return Fq2{c0, c1};
  }

  // [X, Y, Z] with Z as a Jacobian coordinate (snarkjs fromObject).
  template <class Cfg, class Coord>
  Result<ec::Affine<Cfg>> point(const Json& j, const std::string& where, Coord coord) const {
    PP_RETURN_IF_ERROR(array_of(j, 3, where));
    PP_ASSIGN_OR_RETURN(auto x, coord(j[0], where + "[0]"));
    PP_ASSIGN_OR_RETURN(auto y, coord(j[1], where + "[1]"));
    PP_ASSIGN_OR_RETURN(auto z, coord(j[2], where + "[2]"));
    if (z.is_zero()) return ec::Affine<Cfg>::identity();
    ec::Affine<Cfg> p = z.is_one() ? ec::Affine<Cfg>{x, y} : ec::Jacobian<Cfg>{x, y, z}.to_affine();
    // (0, 0) is our in-memory infinity, but as a finite point it is off the curve.
    if (p.is_identity() || !p.on_curve()) return error(where, "point is not on the curve");
    return p;
  }
  Result<typename C::G1Affine> g1(const Json& j, const std::string& where) const {
    return point<typename C::G1Cfg>(j, where, [this](const Json& c, const std::string& w) { return number<Fq>(c, w); });
  }
  Result<typename C::G2Affine> g2(const Json& j, const std::string& where) const {
    return point<typename C::G2Cfg>(j, where, [this](const Json& c, const std::string& w) { return fq2(c, w); });
  }

  Status protocol_and_curve(const Json& obj) const {
    PP_ASSIGN_OR_RETURN(const Json* protocol, field(obj, "protocol"));
    if (!protocol->is_string() || *protocol != kProtocol) {
      return error("", fmt::format("unsupported protocol {} (expected \"groth16\")", one_line(protocol->dump())));
    }
    PP_ASSIGN_OR_RETURN(curves::CurveId id, curve(obj));
    if (curves::curve_name(id) != C::kName) {
      return error("", fmt::format("curve mismatch: \"{}\", expected \"{}\"", curves::curve_name(id), C::kName));
    }
    return Status::ok();
  }

  Result<curves::CurveId> curve(const Json& obj) const {
    PP_ASSIGN_OR_RETURN(const Json* curve, field(obj, "curve"));
    if (curve->is_string() && *curve == curves::Bls12_381::kName) return curves::CurveId::kBls12_381;
    if (curve->is_string() && *curve == curves::Bn254::kName) return curves::CurveId::kBn254;
    return error("", fmt::format("unsupported curve {} (expected \"bls12381\" or \"bn128\")", one_line(curve->dump())));
  }

  // Parses text, nested at most kMaxJsonDepth deep (a verifier is fed
  // untrusted proofs: bounded_json.hpp); wraps every exception from the
  // accessors.
  template <class T, class Body>
  Result<T> run(std::string_view text, Body body) const {
    Result<Json> j = parse_ordered_json_bounded(text);
    if (!j) return error("", j.status().message());
    try {
      return body(*j);
    } catch (const std::exception& e) {
      return error("", fmt::format("malformed JSON: {}", e.what()));
    }
  }

 private:
  std::string_view what_;
};

// Reads a whole (small) text file through the mmap reader.
Result<std::string> read_text(const std::filesystem::path& path, std::string_view kind) {
  auto f = MappedFile::open(path);
  if (!f.is_ok()) return Status(f.status().code(), fmt::format("{} {}", kind, f.status().message()));
  auto b = f->bytes();
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

// Through common/safe_file.hpp: a fresh exclusive temporary beside the
// target, fsync, rename; never through a link planted at either name.
Status write_text_atomic(const std::filesystem::path& path, const std::string& text, std::string_view kind) {
  return write_file_replace(path, text, kind);
}

std::string quoted(std::string_view kind, const std::filesystem::path& path) {
  return fmt::format("{} '{}'", kind, path.string());
}

}  // namespace

template <class C>
VerificationKeyT<C> verification_key_from_zkey(const ZkeyT<C>& zkey,
                                               std::type_identity_t<std::optional<Fq12CoeffsT<C>>> alphabeta_12) {
  VerificationKeyT<C> vk;
  vk.n_public = zkey.n_public();
  vk.alpha1 = zkey.header().alpha1;
  vk.beta2 = zkey.header().beta2;
  vk.gamma2 = zkey.header().gamma2;
  vk.delta2 = zkey.header().delta2;
  vk.alphabeta_12 = alphabeta_12;
  vk.ic.assign(zkey.ic().begin(), zkey.ic().end());
  return vk;
}

// ----- proof.json -----

template <class C>
std::string proof_to_json(const ProofT<C>& proof) {
  Json j = Json::object();
  j["pi_a"] = g1_json(proof.a);
  j["pi_b"] = g2_json(proof.b);
  j["pi_c"] = g1_json(proof.c);
  j["protocol"] = kProtocol;
  j["curve"] = C::kName;
  return dump(j);
}

template <class C>
Result<ProofT<C>> proof_from_json(std::string_view text, std::string_view what) {
  Reader<C> rd(what);
  return rd.template run<ProofT<C>>(text, [&](const Json& j) -> Result<ProofT<C>> {
    if (!j.is_object()) return rd.error("", "expected a JSON object");
    PP_RETURN_IF_ERROR(rd.protocol_and_curve(j));
    ProofT<C> p;
    PP_ASSIGN_OR_RETURN(const Json* a, rd.field(j, "pi_a"));
    PP_ASSIGN_OR_RETURN(p.a, rd.g1(*a, "pi_a"));
    PP_ASSIGN_OR_RETURN(const Json* b, rd.field(j, "pi_b"));
    PP_ASSIGN_OR_RETURN(p.b, rd.g2(*b, "pi_b"));
    PP_ASSIGN_OR_RETURN(const Json* c, rd.field(j, "pi_c"));
    PP_ASSIGN_OR_RETURN(p.c, rd.g1(*c, "pi_c"));
    return p;
  });
}

// ----- public.json -----

template <class C>
std::string public_to_json(std::span<const typename C::Fr> inputs) {
  Json j = Json::array();
  for (const auto& x : inputs) j.push_back(to_decimal(x));
  return dump(j);
}

template <class C>
Result<std::vector<typename C::Fr>> public_from_json(std::string_view text, std::string_view what) {
  using Fr = typename C::Fr;
  Reader<C> rd(what);
  return rd.template run<std::vector<Fr>>(text, [&](const Json& j) -> Result<std::vector<Fr>> {
    if (!j.is_array()) return rd.error("", "expected a JSON array of decimal strings");
    std::vector<Fr> out;
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      PP_ASSIGN_OR_RETURN(Fr v, rd.template number<Fr>(j[i], fmt::format("[{}]", i)));
      out.push_back(v);
    }
    return out;
  });
}

// ----- verification_key.json -----

template <class C>
std::string verification_key_to_json(const VerificationKeyT<C>& vk) {
  Json j = Json::object();
  j["protocol"] = kProtocol;
  j["curve"] = C::kName;
  j["nPublic"] = vk.n_public;
  j["vk_alpha_1"] = g1_json(vk.alpha1);
  j["vk_beta_2"] = g2_json(vk.beta2);
  j["vk_gamma_2"] = g2_json(vk.gamma2);
  j["vk_delta_2"] = g2_json(vk.delta2);
  if (vk.alphabeta_12) {
    Json ab = Json::array();
    for (const auto& fq6 : vk.alphabeta_12->c) {
      Json a6 = Json::array();
      for (const auto& fq2 : fq6) a6.push_back(fq2_json(fq2));
      ab.push_back(std::move(a6));
    }
    j["vk_alphabeta_12"] = std::move(ab);
  }
  Json ic = Json::array();
  for (const auto& p : vk.ic) ic.push_back(g1_json(p));
  j["IC"] = std::move(ic);
  return dump(j);
}

template <class C>
Result<VerificationKeyT<C>> verification_key_from_json(std::string_view text, std::string_view what) {
  Reader<C> rd(what);
  return rd.template run<VerificationKeyT<C>>(text, [&](const Json& j) -> Result<VerificationKeyT<C>> {
    if (!j.is_object()) return rd.error("", "expected a JSON object");
    PP_RETURN_IF_ERROR(rd.protocol_and_curve(j));
    VerificationKeyT<C> vk;
    PP_ASSIGN_OR_RETURN(const Json* n_public, rd.field(j, "nPublic"));
    if (!n_public->is_number_unsigned() || n_public->get<uint64_t>() > UINT32_MAX - 1) {
      return rd.error("nPublic", "expected a non-negative integer");
    }
    vk.n_public = n_public->get<uint32_t>();
    PP_ASSIGN_OR_RETURN(const Json* alpha, rd.field(j, "vk_alpha_1"));
    PP_ASSIGN_OR_RETURN(vk.alpha1, rd.g1(*alpha, "vk_alpha_1"));
    PP_ASSIGN_OR_RETURN(const Json* beta, rd.field(j, "vk_beta_2"));
    PP_ASSIGN_OR_RETURN(vk.beta2, rd.g2(*beta, "vk_beta_2"));
    PP_ASSIGN_OR_RETURN(const Json* gamma, rd.field(j, "vk_gamma_2"));
    PP_ASSIGN_OR_RETURN(vk.gamma2, rd.g2(*gamma, "vk_gamma_2"));
    PP_ASSIGN_OR_RETURN(const Json* delta, rd.field(j, "vk_delta_2"));
    PP_ASSIGN_OR_RETURN(vk.delta2, rd.g2(*delta, "vk_delta_2"));
    if (auto it = j.find("vk_alphabeta_12"); it != j.end()) {
      PP_RETURN_IF_ERROR(rd.array_of(*it, 2, "vk_alphabeta_12"));
      Fq12CoeffsT<C> ab;
      for (size_t i = 0; i < 2; ++i) {
        std::string w6 = fmt::format("vk_alphabeta_12[{}]", i);
        PP_RETURN_IF_ERROR(rd.array_of((*it)[i], 3, w6));
        for (size_t k = 0; k < 3; ++k) {
          PP_ASSIGN_OR_RETURN(ab.c[i][k], rd.fq2((*it)[i][k], fmt::format("{}[{}]", w6, k)));
        }
      }
      vk.alphabeta_12 = ab;
    }
    PP_ASSIGN_OR_RETURN(const Json* ic, rd.field(j, "IC"));
    if (!ic->is_array() || ic->size() != uint64_t(vk.n_public) + 1) {
      return rd.error("IC", fmt::format("expected an array of nPublic + 1 = {} points", uint64_t(vk.n_public) + 1));
    }
    vk.ic.reserve(ic->size());
    for (size_t i = 0; i < ic->size(); ++i) {
      PP_ASSIGN_OR_RETURN(auto p, rd.g1((*ic)[i], fmt::format("IC[{}]", i)));
      vk.ic.push_back(p);
    }
    return vk;
  });
}

// ----- files -----

template <class C>
Status write_proof_json(const std::filesystem::path& path, const ProofT<C>& proof) {
  return write_text_atomic(path, proof_to_json(proof), "proof");
}
template <class C>
Result<ProofT<C>> read_proof_json(const std::filesystem::path& path) {
  PP_ASSIGN_OR_RETURN(std::string text, read_text(path, "proof"));
  return proof_from_json<C>(text, quoted("proof", path));
}

template <class C>
Status write_public_json(const std::filesystem::path& path, std::span<const typename C::Fr> inputs) {
  return write_text_atomic(path, public_to_json<C>(inputs), "public inputs");
}
template <class C>
Result<std::vector<typename C::Fr>> read_public_json(const std::filesystem::path& path) {
  PP_ASSIGN_OR_RETURN(std::string text, read_text(path, "public inputs"));
  return public_from_json<C>(text, quoted("public inputs", path));
}

template <class C>
Status write_proof_and_public(const std::filesystem::path& proof_path, const ProofT<C>& proof,
                              const std::filesystem::path& public_path, std::span<const typename C::Fr> inputs) {
  // public.json first: if the proof's rename fails, commit_together takes
  // the public file back, so neither is ever on disk without the other.
  const std::string pub = public_to_json<C>(inputs), text = proof_to_json(proof);
  const TextFile files[] = {{public_path, pub, "public inputs"}, {proof_path, text, "proof"}};
  return write_together(files);
}

template <class C>
Status write_verification_key_json(const std::filesystem::path& path, const VerificationKeyT<C>& vk) {
  return write_text_atomic(path, verification_key_to_json(vk), "verification key");
}
template <class C>
Result<VerificationKeyT<C>> read_verification_key_json(const std::filesystem::path& path) {
  PP_ASSIGN_OR_RETURN(std::string text, read_text(path, "verification key"));
  return verification_key_from_json<C>(text, quoted("verification key", path));
}

Result<curves::CurveId> json_curve(std::string_view text, std::string_view what) {
  Reader<curves::Bls12_381> rd(what);
  return rd.run<curves::CurveId>(text, [&](const Json& j) -> Result<curves::CurveId> {
    if (!j.is_object()) return rd.error("", "expected a JSON object");
    return rd.curve(j);
  });
}

Result<curves::CurveId> read_json_curve(const std::filesystem::path& path, std::string_view kind) {
  PP_ASSIGN_OR_RETURN(std::string text, read_text(path, kind));
  return json_curve(text, quoted(kind, path));
}

#define PP_PROOF_JSON(C)                                                                                               \
  template VerificationKeyT<C> verification_key_from_zkey(const ZkeyT<C>&, std::optional<Fq12CoeffsT<C>>);             \
  template std::string proof_to_json(const ProofT<C>&);                                                                \
  template Result<ProofT<C>> proof_from_json<C>(std::string_view, std::string_view);                                   \
  template std::string public_to_json<C>(std::span<const C::Fr>);                                                      \
  template Result<std::vector<C::Fr>> public_from_json<C>(std::string_view, std::string_view);                         \
  template std::string verification_key_to_json(const VerificationKeyT<C>&);                                           \
  template Result<VerificationKeyT<C>> verification_key_from_json<C>(std::string_view, std::string_view);              \
  template Status write_proof_json(const std::filesystem::path&, const ProofT<C>&);                                    \
  template Result<ProofT<C>> read_proof_json<C>(const std::filesystem::path&);                                         \
  template Status write_public_json<C>(const std::filesystem::path&, std::span<const C::Fr>);                          \
  template Result<std::vector<C::Fr>> read_public_json<C>(const std::filesystem::path&);                               \
  template Status write_proof_and_public(const std::filesystem::path&, const ProofT<C>&, const std::filesystem::path&, \
                                         std::span<const C::Fr>);                                                      \
  template Status write_verification_key_json(const std::filesystem::path&, const VerificationKeyT<C>&);               \
  template Result<VerificationKeyT<C>> read_verification_key_json<C>(const std::filesystem::path&);
PP_PROOF_JSON(curves::Bls12_381)
PP_PROOF_JSON(curves::Bn254)
#undef PP_PROOF_JSON

}  // namespace proofpipe::formats
