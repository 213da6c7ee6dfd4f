// Names of message types and roles, for logs; the GPU worker's HELLO body.
#include "proofpipe/ipc/messages.hpp"

#include <fmt/format.h>

namespace proofpipe::ipc {

const char* role_name(Role role) {
  switch (role) {
    case Role::kSynth: return "synth";
    case Role::kProver: return "gpu";
    case Role::kClient: return "client";
  }
  return "?";
}

const char* msg_type_name(MsgType type) {
  switch (type) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kWantSlot: return "WANT_SLOT";
    case MsgType::kSealed: return "SEALED";
    case MsgType::kSynthFailed: return "SYNTH_FAILED";
    case MsgType::kClaimed: return "CLAIMED";
    case MsgType::kClaimLost: return "CLAIM_LOST";
    case MsgType::kQuarantined: return "QUARANTINED";
    case MsgType::kReleased: return "RELEASED";
    case MsgType::kProof: return "PROOF";
    case MsgType::kProveFailed: return "PROVE_FAILED";
    case MsgType::kStatusRequest: return "STATUS_REQUEST";
    case MsgType::kGrant: return "GRANT";
    case MsgType::kDispatch: return "DISPATCH";
    case MsgType::kShutdown: return "SHUTDOWN";
    case MsgType::kStatusReply: return "STATUS_REPLY";
  }
  return "?";
}

std::string encode_gpu_hello(const GpuHello& hello) {
  return hello.backend + "\n" + hello.devices + "\n" + hello.intake;
}

GpuHello decode_gpu_hello(std::string_view body) {
  // Line by line; a missing line is empty, the last field keeps the rest.
  const auto next = [&body](bool last) {
    const size_t nl = last ? std::string_view::npos : body.find('\n');
    const std::string_view field = body.substr(0, nl);
    body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    return std::string(field.substr(0, 256));
  };
  GpuHello h;
  h.backend = next(false);
  h.devices = next(false);
  h.intake = next(true);
  return h;
}

std::string describe(const GpuHello& hello) {
  return hello.devices.empty() ? hello.backend : hello.backend + " " + hello.devices;
}

bool split_proof(std::string_view body, size_t proof_bytes, std::string* proof, ProveStages* stages) {
  if (body.size() != proof_bytes + sizeof *stages) return false;
  proof->assign(body.substr(0, proof_bytes));
  std::memcpy(stages, body.data() + proof_bytes, sizeof *stages);
  return true;
}

std::string encode_generate(const GenerateRequest& request) {
  std::string body;
  for (const std::string& arg : request.command) body += arg + '\0';
  return body + request.input;
}

std::optional<GenerateRequest> decode_generate(std::string_view body) {
  GenerateRequest r;
  size_t nul = 0;
  while ((nul = body.find('\0')) != std::string_view::npos) {
    r.command.emplace_back(body.substr(0, nul));
    body.remove_prefix(nul + 1);
  }
  r.input = std::string(body);
  if (r.command.empty() || r.command[0].empty() || r.input.empty()) return std::nullopt;
  return r;
}

std::string describe(const MsgHeader& h) {
  return fmt::format("{} from {}.{} inc {} slot {} epoch {} job {}/{} attempt {}", msg_type_name(h.type),
                     role_name(h.role), h.seat, h.incarnation, h.slot, h.epoch, h.job, h.partition, h.attempt);
}

}  // namespace proofpipe::ipc
