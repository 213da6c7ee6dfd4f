// Fuzz target: the control-plane message bodies and headers (ipc/messages.hpp)
// as a peer could send them: a HELLO body (decode_gpu_hello), a PROOF body
// (decode_proof), and a 48-byte header printed for the log (describe). The
// Router's frame check is a size and version test inside channel.cpp, not
// callable without a socket. Property: no crash; a decoded body survives
// encode -> decode.
#include <cstring>

#include "fuzz_input.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/ipc/messages.hpp"

using namespace proofpipe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);

  const ipc::GpuHello hello = ipc::decode_gpu_hello(body);
  PP_FUZZ_CHECK(hello.backend.size() <= 256 && hello.devices.size() <= 256 && hello.intake.size() <= 256);
  const ipc::GpuHello again = ipc::decode_gpu_hello(ipc::encode_gpu_hello(hello));
  PP_FUZZ_CHECK(again.backend == hello.backend && again.devices == hello.devices && again.intake == hello.intake);
  volatile size_t sink = ipc::describe(hello).size();

  formats::ProofT<curves::Bls12_381> proof{};
  ipc::ProveStages stages{};
  if (ipc::decode_proof(body, &proof, &stages)) {
    PP_FUZZ_CHECK(size == sizeof proof + sizeof stages);
    PP_FUZZ_CHECK(ipc::encode_proof(proof, stages) == body);
  } else {
    PP_FUZZ_CHECK(size != sizeof proof + sizeof stages);
  }

  if (size >= sizeof(ipc::MsgHeader)) {
    ipc::MsgHeader h;
    std::memcpy(&h, data, sizeof h);
    sink = sink + ipc::describe(h).size();
  }
  (void)sink;
  return 0;
}
