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
#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/mapped_file.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::formats {

namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kProtocol = "groth16";
constexpr const char* kCurve = "bls12381";

// ----- writing -----

Json g1_json(const ec::G1Affine& p) {
  if (p.is_identity()) return Json::array({"0", "1", "0"});
  return Json::array({to_decimal(p.x), to_decimal(p.y), "1"});
}
Json fq2_json(const ff::Fq2& v) { return Json::array({to_decimal(v.c0), to_decimal(v.c1)}); }
Json g2_json(const ec::G2Affine& p) {
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

class Reader {
 public:
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
    Result<F> v = [&] {
      if constexpr (std::is_same_v<F, ff::Fr>) {
        return fr_from_decimal(s);
      } else {
        return fq_from_decimal(s);
      }
    }();
    if (!v.is_ok()) return error(where, v.status().message());
    return v;
  }

  Result<ff::Fq2> fq2(const Json& j, const std::string& where) const {
    PP_RETURN_IF_ERROR(array_of(j, 2, where));
    PP_ASSIGN_OR_RETURN(ff::Fq c0, number<ff::Fq>(j[0], where + "[0]"));
    PP_ASSIGN_OR_RETURN(ff::Fq c1, number<ff::Fq>(j[1], where + "[1]"));
    return ff::Fq2{c0, c1};
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
  Result<ec::G1Affine> g1(const Json& j, const std::string& where) const {
    return point<ec::G1Cfg>(j, where, [this](const Json& c, const std::string& w) { return number<ff::Fq>(c, w); });
  }
  Result<ec::G2Affine> g2(const Json& j, const std::string& where) const {
    return point<ec::G2Cfg>(j, where, [this](const Json& c, const std::string& w) { return fq2(c, w); });
  }

  Status protocol_and_curve(const Json& obj) const {
    PP_ASSIGN_OR_RETURN(const Json* protocol, field(obj, "protocol"));
    if (!protocol->is_string() || *protocol != kProtocol) {
      return error("", fmt::format("unsupported protocol {} (expected \"groth16\")", one_line(protocol->dump())));
    }
    PP_ASSIGN_OR_RETURN(const Json* curve, field(obj, "curve"));
    if (!curve->is_string() || *curve != kCurve) {
      return error("", fmt::format("unsupported curve {} (expected \"bls12381\")", one_line(curve->dump())));
    }
    return Status::ok();
  }

  // Parses text; wraps every exception from the parser or accessors.
  template <class T, class Body>
  Result<T> run(std::string_view text, Body body) const {
    try {
      Json j = Json::parse(text.begin(), text.end());
      return body(j);
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

VerificationKey verification_key_from_zkey(const Zkey& zkey, std::optional<Fq12Coeffs> alphabeta_12) {
  VerificationKey vk;
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

std::string proof_to_json(const Proof& proof) {
  Json j = Json::object();
  j["pi_a"] = g1_json(proof.a);
  j["pi_b"] = g2_json(proof.b);
  j["pi_c"] = g1_json(proof.c);
  j["protocol"] = kProtocol;
  j["curve"] = kCurve;
  return dump(j);
}

Result<Proof> proof_from_json(std::string_view text, std::string_view what) {
  Reader rd(what);
  return rd.run<Proof>(text, [&](const Json& j) -> Result<Proof> {
    if (!j.is_object()) return rd.error("", "expected a JSON object");
    PP_RETURN_IF_ERROR(rd.protocol_and_curve(j));
    Proof p;
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

std::string public_to_json(std::span<const ff::Fr> inputs) {
  Json j = Json::array();
  for (const auto& x : inputs) j.push_back(to_decimal(x));
  return dump(j);
}

Result<std::vector<ff::Fr>> public_from_json(std::string_view text, std::string_view what) {
  Reader rd(what);
  return rd.run<std::vector<ff::Fr>>(text, [&](const Json& j) -> Result<std::vector<ff::Fr>> {
    if (!j.is_array()) return rd.error("", "expected a JSON array of decimal strings");
    std::vector<ff::Fr> out;
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      PP_ASSIGN_OR_RETURN(ff::Fr v, rd.number<ff::Fr>(j[i], fmt::format("[{}]", i)));
      out.push_back(v);
    }
    return out;
  });
}

// ----- verification_key.json -----

std::string verification_key_to_json(const VerificationKey& vk) {
  Json j = Json::object();
  j["protocol"] = kProtocol;
  j["curve"] = kCurve;
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

Result<VerificationKey> verification_key_from_json(std::string_view text, std::string_view what) {
  Reader rd(what);
  return rd.run<VerificationKey>(text, [&](const Json& j) -> Result<VerificationKey> {
    if (!j.is_object()) return rd.error("", "expected a JSON object");
    PP_RETURN_IF_ERROR(rd.protocol_and_curve(j));
    VerificationKey vk;
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
      Fq12Coeffs ab;
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

Status write_proof_json(const std::filesystem::path& path, const Proof& proof) {
  return write_text_atomic(path, proof_to_json(proof), "proof");
}
Result<Proof> read_proof_json(const std::filesystem::path& path) {
  PP_ASSIGN_OR_RETURN(std::string text, read_text(path, "proof"));
  return proof_from_json(text, quoted("proof", path));
}

Status write_public_json(const std::filesystem::path& path, std::span<const ff::Fr> inputs) {
  return write_text_atomic(path, public_to_json(inputs), "public inputs");
}
Result<std::vector<ff::Fr>> read_public_json(const std::filesystem::path& path) {
  PP_ASSIGN_OR_RETURN(std::string text, read_text(path, "public inputs"));
  return public_from_json(text, quoted("public inputs", path));
}

Status write_proof_and_public(const std::filesystem::path& proof_path, const Proof& proof,
                              const std::filesystem::path& public_path, std::span<const ff::Fr> inputs) {
  // public.json first: if the proof's rename fails, commit_together takes
  // the public file back, so neither is ever on disk without the other.
  std::vector<PendingFile> files;
  for (const auto& [path, text, kind] : {std::tuple{public_path, public_to_json(inputs), "public inputs"},
                                         std::tuple{proof_path, proof_to_json(proof), "proof"}}) {
    PP_ASSIGN_OR_RETURN(PendingFile file, PendingFile::create(path, kind));
    PP_RETURN_IF_ERROR(file.write(text));
    files.push_back(std::move(file));
  }
  return commit_together(files);
}

Status write_verification_key_json(const std::filesystem::path& path, const VerificationKey& vk) {
  return write_text_atomic(path, verification_key_to_json(vk), "verification key");
}
Result<VerificationKey> read_verification_key_json(const std::filesystem::path& path) {
  PP_ASSIGN_OR_RETURN(std::string text, read_text(path, "verification key"));
  return verification_key_from_json(text, quoted("verification key", path));
}

}  // namespace proofpipe::formats
