// The control-plane messages between the coordinator and its workers
// (docs/pipeline.md). Messages are hints: shared memory and the coordinator's
// ledger are the truth, and a message may be lost with a killed process. Each
// one therefore names who sent it (seat, incarnation) and what it is about
// (slot, epoch, request, partition, attempt), so a stale or duplicate one is
// recognised and dropped.
//
// Wire form: one ZeroMQ frame holding MsgHeader (a fixed, trivially copyable
// struct; both ends are built from the same revision, checked by kWireVersion)
// followed by one optional frame of body bytes (a path, an error text, a proof).
//
//   synth worker                 coordinator                  gpu worker
//   ------------                 -----------                  ----------
//   HELLO ---------------------->                <------ HELLO(backend, devices)
//   WANT_SLOT ------------------> grant FREE->WRITING (CAS)
//             <------------------ GRANT(slot, epoch, job, wtns path)
//   write a,b,c,w; seal (CAS)
//   SEALED ---------------------> queue the READY slot
//                                 DISPATCH(slot, epoch, job) ------->
//                                                       claim (CAS READY->CONSUMING)
//                                 <------------------------- CLAIMED
//                                              copy out + checksum; release (CAS ->FREE)
//                                 <------------------------ RELEASED
//                                                       H step, MSMs
//                                 verify, commit once <-- PROOF(proof, stage times)
//   SYNTH_FAILED (input error) -> retry or mark failed
//                     SHUTDOWN to everyone when the batch is done
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace proofpipe::ipc {

// 2: HELLO and PROOF bodies (backend, ProveStages); 3: HELLO intake; 4: the key of a GRANT/DISPATCH;
// 5: GRANT kFlagGenerate (a GenerateRequest body), SEALED with public signals
inline constexpr uint32_t kWireVersion = 5;

enum class Role : uint8_t { kSynth = 1, kProver = 2, kClient = 3 };  // kClient: `proofpipe status`
const char* role_name(Role role);

enum class MsgType : uint8_t {
  // worker -> coordinator
  kHello = 1,      // body: gpu: GpuHello; synth: empty
  kWantSlot,       // synth: idle, asks for a slot and a partition
  kSealed,         // synth: slot sealed READY at `epoch`; body after kFlagGenerate: the generator's
                   //   seconds (a double), then w[1..nPublic] (raw Fr)
  kSynthFailed,    // synth: aborted the write; body = reason; flags & kFlagPermanent
  kClaimed,        // gpu: slot claimed, now CONSUMING at `epoch`
  kClaimLost,      // gpu: the claim CAS lost (stale dispatch)
  kQuarantined,    // gpu: the record failed its check; slot QUARANTINED at `epoch`
  kReleased,       // gpu: slot FREE at `epoch`
  kProof,          // gpu: body = formats::ProofT<C> bytes (the key's curve), then ProveStages
  kProveFailed,    // gpu: the prover returned an error; body = reason
  kStatusRequest,  // client (`proofpipe status`): answered with kStatusReply
  // coordinator -> worker
  kGrant = 64,  // slot WRITING(seat) at `epoch`; body = witness path, or with kFlagGenerate a GenerateRequest
  kDispatch,    // slot READY at `epoch`: claim it
  kShutdown,
  kStatusReply,  // body = the status JSON (docs/metrics.md)
};
const char* msg_type_name(MsgType type);

inline constexpr uint32_t kFlagPermanent = 1;  // kSynthFailed: bad input, retrying cannot help
inline constexpr uint32_t kFlagGenerate = 2;   // kGrant: generate the witness from circuit inputs first
// kSynthFailed: the witness generator died of SIGKILL (the worker lives on);
// the coordinator tells an OOM kill from its cgroup's counter.
inline constexpr uint32_t kFlagGeneratorKilled = 4;

struct MsgHeader {
  uint32_t wire_version = kWireVersion;
  MsgType type = MsgType::kHello;
  Role role = Role::kSynth;
  uint8_t seat = 0;
  uint8_t key = 0;  // GRANT, DISPATCH: which of the workers' keys (their --zkey order) the partition is for
  uint32_t incarnation = 0;
  uint32_t slot = 0;
  uint64_t epoch = 0;
  uint64_t job = 0;
  uint32_t partition = 0;
  uint32_t attempt = 0;
  uint32_t flags = 0;
  uint32_t pid = 0;  // kHello
};
static_assert(std::is_trivially_copyable_v<MsgHeader>);
static_assert(sizeof(MsgHeader) == 48);

struct Message {
  MsgHeader header;
  std::string body;
};

// A proving worker's HELLO body: the backend it proves with ("cuda", "cpu"),
// for the CUDA backend the devices it was given (its CUDA_VISIBLE_DEVICES;
// empty if unset or on the CPU backend), and how it takes a record out of
// its slot ("copy" or "take", prover_loop.cpp), as three lines, so the run's
// summary says what really proved each partition, and how.
struct GpuHello {
  std::string backend;
  std::string devices;
  std::string intake;
};
std::string encode_gpu_hello(const GpuHello& hello);
GpuHello decode_gpu_hello(std::string_view body);  // fields cut to 256 bytes
std::string describe(const GpuHello& hello);       // "cuda 0", "cpu": for tables (no intake)

// The tail of a PROOF body: where the proving worker's time went for this
// proof (steady-clock seconds), for the run's summary and an operator asking
// what bounds a GPU worker: taking the record out of its slot (copy and
// checksum), the H step, the five MSMs.
struct ProveStages {
  double intake_s = 0;
  double h_s = 0;
  double msms_s = 0;
};
static_assert(std::is_trivially_copyable_v<ProveStages> && sizeof(ProveStages) == 24);

// The PROOF body: the proof's bytes, then ProveStages. A template so that
// ipc/ need not know the proof type (formats::ProofT), only that it travels
// as raw bytes; both ends are one build (kWireVersion).
template <class ProofT>
std::string encode_proof(const ProofT& proof, const ProveStages& stages) {
  static_assert(std::is_trivially_copyable_v<ProofT>, "proofs travel as raw bytes");
  std::string body(sizeof proof + sizeof stages, '\0');
  std::memcpy(body.data(), &proof, sizeof proof);
  std::memcpy(body.data() + sizeof proof, &stages, sizeof stages);
  return body;
}
// The coordinator's side, which does not know the curve: false (outputs
// untouched) unless the body is exactly proof_bytes (the size of a proof on
// the partition's key's curve: 384 bytes on BLS12-381, 256 on BN254) and
// the stages; the proof's bytes go to `proof` as they came.
bool split_proof(std::string_view body, size_t proof_bytes, std::string* proof, ProveStages* stages);
// The same for a known proof type.
template <class ProofT>
bool decode_proof(std::string_view body, ProofT* proof, ProveStages* stages) {
  static_assert(std::is_trivially_copyable_v<ProofT>, "proofs travel as raw bytes");
  std::string bytes;
  if (!split_proof(body, sizeof *proof, &bytes, stages)) return false;
  std::memcpy(static_cast<void*>(proof), bytes.data(), sizeof *proof);
  return true;
}

// A GRANT's body with kFlagGenerate (docs/witness-gen.md): the witness
// generator's command line up to its two file arguments (the coordinator
// resolved it: absolute paths), and the circuit input JSON file. Encoded as
// NUL-separated fields (no path holds a NUL), the input last.
struct GenerateRequest {
  std::vector<std::string> command;
  std::string input;
};
std::string encode_generate(const GenerateRequest& request);
// nullopt for a body with no command.
std::optional<GenerateRequest> decode_generate(std::string_view body);

// "GRANT seat 2 inc 5 slot 1 epoch 7 job 0/3 attempt 1": for logs.
std::string describe(const MsgHeader& h);

}  // namespace proofpipe::ipc
