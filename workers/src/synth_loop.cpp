// Synthesis worker loop (synth_loop.hpp). Fault sites, in the order a
// partition reaches them (docs/design/recovery.md §6): synth.after_grant,
// synth.mid_write, synth.before_seal, synth.after_seal. A GRANT may ask for
// the witness to be generated from circuit inputs first (witness_gen/generator.hpp).
// The curve is each key's (docs/curves.md): run() reads every zkey's curve,
// makes one SynthWorker<C> per curve present over that curve's keys, and
// hands each GRANT to the worker of its key's curve; everything below run()
// is one template over C.
#include "synth_loop.hpp"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>
#include <span>
#include <vector>

#include "curve_keys.hpp"
#include "proofpipe/common/clock.hpp"
#include "proofpipe/common/fault.hpp"
#include "proofpipe/common/progress.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/prover.hpp"
#include "proofpipe/ipc/partition_layout.hpp"
#include "proofpipe/witness_gen/generator.hpp"

namespace proofpipe::synth {
namespace {

using ipc::MsgHeader;
using ipc::MsgType;

// One of the run's keys, as synthesis needs it (coefficients only).
template <class C>
struct KeyView {
  groth16::ProvingKeyT<C> pk;
  ipc::PartitionLayout layout;
};
template <class C>
using KeyViews = workers::CurveKeys<KeyView<C>>;

template <class C>
class SynthWorker {
 public:
  using Fr = typename C::Fr;
  SynthWorker(ipc::WorkerSession& session, KeyViews<C>& keys, witness_gen::GeneratorLimits limits)
      : s_(session), keys_(keys), limits_(std::move(limits)) {}

  // One GRANT: fills the slot and seals it, or aborts the write and says why.
  Status handle_grant(const ipc::Message& m) {
    const MsgHeader& g = m.header;
    fault_point("synth.after_grant", int(g.partition));
    shm::SlotRing& slots = s_.ring().slots();
    if (g.slot >= slots.slot_count() || !slots.owns(g.slot, shm::SlotState::kWriting, s_.seat(), g.epoch)) {
      spdlog::warn("stale grant dropped: slot {} epoch {} is not WRITING by us", g.slot, g.epoch);
      return Status::ok();
    }
    // A bad key index (curve_keys.hpp): the slot we hold is given back and
    // the partition fails for good.
    auto key = workers::key_at<C>(keys_, g.key, "grant");
    if (!key) return fail(g, key.status(), /*permanent=*/true);
    const groth16::ProvingKeyT<C>& pk = (*key)->pk;
    const ipc::PartitionLayout& layout = (*key)->layout;
    const auto t0 = std::chrono::steady_clock::now();
    std::byte* base = slots.payload(g.slot).data();
    auto fr_span = [&](uint64_t offset, uint64_t count) {
      return std::span<Fr>(reinterpret_cast<Fr*>(base + offset), count);
    };
    auto a = fr_span(layout.a_offset(), layout.domain_size);
    auto b = fr_span(layout.b_offset(), layout.domain_size);
    auto c = fr_span(layout.c_offset(), layout.domain_size);
    auto w = fr_span(layout.witness_offset(), layout.n_vars);

    // The witness goes straight into the slot: no private copy. Each stage
    // counts as progress for the heartbeat (ipc/worker.hpp); synthesis and
    // the checksum count their own chunks (parallel_for).
    const bool generate = (g.flags & ipc::kFlagGenerate) != 0;
    std::string signals;  // SEALED's body after a generated witness: its seconds, w[1..nPublic]
    if (generate) {
      PP_ASSIGN_OR_RETURN(const bool ready, generate_witness(g, m.body, pk, w));
      if (!ready) return Status::ok();  // the partition failed, and the coordinator was told
      const double generate_s = seconds_since(t0);
      const auto pub = w.subspan(1, pk.n_public);
      signals.assign(reinterpret_cast<const char*>(&generate_s), sizeof generate_s);
      signals.append(reinterpret_cast<const char*>(pub.data()), pub.size_bytes());
    } else {
      note_progress("read witness");
      Status st = read_witness(m.body, pk, w);
      if (!st) return fail(g, st, /*permanent=*/true);
    }
    fault_point("synth.mid_write", int(g.partition));
    note_progress("synthesize");
    Status st = groth16::synthesize(pk, w, a, b, c);
    if (!st) return fail(g, st, /*permanent=*/false);

    note_progress("checksum");
    shm::SlotRing::SealInfo info;
    info.job_id = g.job;
    info.partition_id = g.partition;
    info.attempt = g.attempt;
    info.payload_len = layout.payload_len();
    info.checksum = shm::record_checksum(std::span<const std::byte>(base, info.payload_len));
    fault_damage("synth.before_seal", int(g.partition), std::span<std::byte>(base, info.payload_len));
    const auto sealed = slots.seal(g.slot, s_.seat(), g.epoch, info);
    if (!sealed) {
      spdlog::warn("seal lost: slot {} epoch {} was taken from us", g.slot, g.epoch);
      return Status::ok();
    }
    fault_point("synth.after_seal", int(g.partition));
    const double secs = seconds_since(t0);
    spdlog::debug("sealed job {}/{} in slot {} ({:.3f} s)", g.job, g.partition, g.slot, secs);
    MsgHeader h = g;
    h.epoch = *sealed;
    return s_.send(MsgType::kSealed, h, std::move(signals));
  }

 private:
  // A GRANT with kFlagGenerate: runs the generator (witness_gen/generator.hpp)
  // and reads what it wrote into the slot, checked as a witness file is. True:
  // the witness is in place; false: the partition failed and SYNTH_FAILED
  // said so; an error is fatal to the loop (the socket).
  // However the generator ends, this worker goes on (the retry rule,
  // docs/witness-gen.md): its failure is its partition's attempt, told to
  // the coordinator, never a worker death that would count toward retiring
  // the seat. A SIGKILL is flagged: the coordinator reads the cgroup's OOM
  // counter (which it owns) to say whether the cap killed it.
  Result<bool> generate_witness(const MsgHeader& g, const std::string& body, const groth16::ProvingKeyT<C>& pk,
                                std::span<Fr> w) {
    const auto failed = [&](const Status& why, bool permanent, uint32_t flags = 0) -> Result<bool> {
      PP_RETURN_IF_ERROR(fail(g, why, permanent, flags));
      return false;
    };
    const auto req = ipc::decode_generate(body);
    if (!req) return failed(make_error(ErrorCode::kInternal, "malformed generate request"), /*permanent=*/true);
    note_progress("generate witness");
    auto gen = witness_gen::run_generator(
        *req, [] { note_progress("generate witness"); }, limits_);
    if (!gen) return failed(gen.status(), /*permanent=*/false);  // no child could start: try again
    const Status what = make_error(ErrorCode::kInvalidArgument, "input '{}': {}", req->input, gen->describe());
    switch (gen->end) {
      case witness_gen::GeneratorRun::End::kOk: break;
      case witness_gen::GeneratorRun::End::kInputFailure: return failed(what, /*permanent=*/true);
      case witness_gen::GeneratorRun::End::kKilled: return failed(what, /*permanent=*/false, ipc::kFlagGeneratorKilled);
      case witness_gen::GeneratorRun::End::kCrashed:
      case witness_gen::GeneratorRun::End::kTimedOut:
      case witness_gen::GeneratorRun::End::kStalled: return failed(what, /*permanent=*/false);
    }
    note_progress("read witness");
    const std::string fd_path = fmt::format("/proc/self/fd/{}", gen->witness_fd);
    Status st = read_witness(fd_path, pk, w);
    ::close(gen->witness_fd);
    if (!st) {
      return failed(make_error(st.code(), "the witness generated from input '{}': {}", req->input, st.message()),
                    /*permanent=*/true);
    }
    return true;
  }

  // A witness for the other curve is "curve mismatch" (the coordinator
  // checked the files; a generator could still write the wrong field).
  static Status read_witness(const std::string& path, const groth16::ProvingKeyT<C>& pk, std::span<Fr> w) {
    PP_ASSIGN_OR_RETURN(uint32_t n, formats::read_wtns_prefix<C>(path, w));
    if (n != pk.n_vars) {
      return make_error(ErrorCode::kInvalidArgument, "witness '{}' has {} values, the key expects nVars = {}", path, n,
                        pk.n_vars);
    }
    if (!w[0].is_one()) return make_error(ErrorCode::kInvalidArgument, "witness '{}': w[0] is not 1", path);
    return Status::ok();
  }

  Status fail(const MsgHeader& g, const Status& why, bool permanent, uint32_t flags = 0) {
    // The coordinator logs the failure it is sent (and run's summary lists
    // it): at error level here too, every generator error was printed twice.
    spdlog::debug("job {}/{} attempt {}: {}", g.job, g.partition, g.attempt, why.message());
    const auto aborted = s_.ring().slots().abort_write(g.slot, s_.seat(), g.epoch);
    if (!aborted) spdlog::warn("abort lost: slot {} epoch {} was taken from us", g.slot, g.epoch);
    MsgHeader h = g;
    h.epoch = aborted.value_or(g.epoch);
    h.flags = (permanent ? ipc::kFlagPermanent : 0) | flags;
    return s_.send(MsgType::kSynthFailed, h, why.message());
  }

  ipc::WorkerSession& s_;
  KeyViews<C>& keys_;
  const witness_gen::GeneratorLimits limits_;
};

// The run's keys of curve C (curve[i] is key i's), mapped once for the life
// of the worker. Synthesis needs the coefficients only; the point sections
// stay unmapped. False (logged) when one cannot serve.
template <class C>
bool load_keys(ipc::WorkerSession& s, const ipc::WorkerArgs& args, std::span<const curves::CurveId> curve,
               std::vector<formats::ZkeyT<C>>& zkeys, KeyViews<C>& keys) {
  zkeys.reserve(args.zkeys.size());
  keys.resize(args.zkeys.size());
  for (size_t i = 0; i < args.zkeys.size(); ++i) {
    if (curve[i] != curves::curve_id<C>()) continue;
    const std::string& path = args.zkeys[i];
    auto zkey = formats::load_zkey<C>(path, {.points = false});
    if (!zkey) {
      spdlog::error("set-up failed: {}", zkey.status().message());
      return false;
    }
    zkeys.push_back(std::move(*zkey));
    const groth16::ProvingKeyT<C> pk = groth16::proving_key_of(zkeys.back());
    const ipc::PartitionLayout layout{pk.domain_size, pk.n_vars};
    if (layout.payload_len() > s.ring().slot_size()) {
      spdlog::error("set-up failed: a partition of '{}' needs {} bytes, slots hold {}", path, layout.payload_len(),
                    s.ring().slot_size());
      return false;
    }
    keys[i] = KeyView<C>{pk, layout};
  }
  return true;
}

}  // namespace

int run(const ipc::WorkerArgs& args) {
  auto session = ipc::WorkerSession::start(ipc::Role::kSynth, args);
  if (!session) {
    spdlog::error("set-up failed: {}", session.status().message());
    return ipc::kWorkerExitSetup;
  }
  ipc::WorkerSession& s = **session;
  note_progress("load keys");
  auto key_curves = formats::zkey_curves(args.zkeys);
  if (!key_curves) {
    spdlog::error("set-up failed: {}", key_curves.status().message());
    return ipc::kWorkerExitSetup;
  }
  const std::vector<curves::CurveId>& curve = *key_curves;
  // One worker per curve, over its keys (the other curve's entries empty).
  std::vector<formats::ZkeyT<curves::Bls12_381>> bls_zkeys;
  std::vector<formats::ZkeyT<curves::Bn254>> bn_zkeys;
  KeyViews<curves::Bls12_381> bls_keys;
  KeyViews<curves::Bn254> bn_keys;
  if (!load_keys(s, args, curve, bls_zkeys, bls_keys) || !load_keys(s, args, curve, bn_zkeys, bn_keys))
    return ipc::kWorkerExitSetup;
  // Each generator run: the run's wall-clock limit, and its private working
  // directory under $TMPDIR (not the run directory: one a killed worker
  // leaves behind would make the run directory foreign to proofpipe).
  witness_gen::GeneratorLimits limits;
  limits.timeout = std::chrono::milliseconds(args.generate_timeout_ms);
  limits.stall = std::chrono::milliseconds(args.generate_stall_ms);
  // A generator's child that leaves its process group is still ours to kill.
  if (Status st = witness_gen::become_subreaper(); !st) spdlog::warn("{}", st.message());
  SynthWorker<curves::Bls12_381> bls(s, bls_keys, limits);
  SynthWorker<curves::Bn254> bn(s, bn_keys, limits);
  if (!s.ready() || !s.send(MsgType::kWantSlot)) return ipc::kWorkerExitProtocol;
  return ipc::serve(s, MsgType::kGrant, [&](const ipc::Message& m) {
    const bool bn254 = workers::goes_to_bn254(curve, m.header.key, /*bls_present=*/true);
    PP_RETURN_IF_ERROR(bn254 ? bn.handle_grant(m) : bls.handle_grant(m));
    return s.send(MsgType::kWantSlot);
  });
}

}  // namespace proofpipe::synth
