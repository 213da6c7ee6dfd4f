// A hostile peer on the control socket of a real `proofpipe run`:
// garbage frames, headers shaped like ours that name slot 999, partition
// 2^31, a seat or incarnation that is not live, a truncated header or body,
// and random bytes. Each is dropped and counted (summary.json's
// stale_messages_dropped and malformed_messages_dropped), the coordinator
// neither aborts nor stops, and every proof of the batch is committed and
// verifies. The message checks are in engine/src/scheduler.cpp and
// ipc/src/channel.cpp; docs/pipeline.md describes the wire format.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "proofpipe/ipc/messages.hpp"
#include "support/cli.hpp"
#include "support/json_file.hpp"
#include "support/run_watch.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using ipc::MsgHeader;
using ipc::MsgType;
using ipc::Role;
using nlohmann::json;

std::string header_bytes(const MsgHeader& h) { return std::string(reinterpret_cast<const char*>(&h), sizeof h); }

// The intruder: a DEALER with a routing id no worker has. Every message it
// sends goes out as one multipart message; `counted` is how many of them the
// coordinator must drop and count (all but a status request).
struct Intruder {
  zmq::context_t ctx{1};
  zmq::socket_t sock{ctx, zmq::socket_type::dealer};
  uint64_t counted = 0;
  uint64_t malformed = 0;  // of `counted`: with a field no message of ours can hold

  explicit Intruder(const std::string& endpoint) {
    sock.set(zmq::sockopt::routing_id, "intruder");
    sock.set(zmq::sockopt::linger, 2000);
    sock.connect(endpoint);
  }
  void send(const std::vector<std::string>& frames, bool is_counted = true) {
    std::vector<zmq::const_buffer> bufs;
    for (const auto& f : frames) bufs.emplace_back(f.data(), f.size());
    ASSERT_TRUE(zmq::send_multipart(sock, bufs).has_value());
    counted += is_counted;
  }
  void send(const MsgHeader& h, const std::string& body = {}) {
    send(body.empty() ? std::vector<std::string>{header_bytes(h)} : std::vector<std::string>{header_bytes(h), body});
  }
};

MsgHeader shaped(MsgType type, Role role, uint8_t seat, uint32_t incarnation) {
  MsgHeader h;
  h.type = type;
  h.role = role;
  h.seat = seat;
  h.incarnation = incarnation;
  return h;
}

void send_garbage(Intruder& in, std::mt19937_64& rng) {
  // Frames that are not [header][body?]: the ROUTER's decode drops them.
  in.send({"hello"});
  in.send({std::string(sizeof(MsgHeader) - 1, '\x01')});               // a truncated header
  in.send({header_bytes(MsgHeader{}), "body", "one frame too many"});  // three frames
  MsgHeader old = shaped(MsgType::kHello, Role::kSynth, 0, 1);
  old.wire_version = ipc::kWireVersion + 1;
  in.send(old);
  // Shaped like ours, with fields out of range: malformed.
  MsgHeader slot = shaped(MsgType::kSealed, Role::kSynth, 0, 1);
  slot.slot = 999;
  in.send(slot);
  MsgHeader part = shaped(MsgType::kClaimed, Role::kProver, 1, 2);
  part.partition = 1u << 31;
  in.send(part);
  MsgHeader both = shaped(MsgType::kProof, Role::kProver, 1, 2);
  both.slot = 0xffffffffu;
  both.partition = 0xffffffffu;
  in.send(both, "short");
  in.malformed += 3;
  // In range, but not from a live seat's own socket: stale.
  in.send(shaped(MsgType::kWantSlot, Role::kSynth, 200, 1));                   // no such seat
  in.send(shaped(MsgType::kSealed, Role::kSynth, 0, 9999));                    // not the live incarnation
  in.send(shaped(MsgType::kHello, Role::kProver, 0, 1));                       // seat 0 is a synth seat
  in.send(shaped(MsgType::kSealed, Role::kSynth, 0, 1));                       // the live seat's name, not its socket
  in.send(shaped(MsgType::kProof, Role::kProver, 1, 2), std::string(7, 'p'));  // a truncated PROOF body
  in.send(shaped(MsgType::kShutdown, Role::kSynth, 0, 1));                     // a coordinator-only type
  MsgHeader junk_type = shaped(MsgType::kHello, Role::kSynth, 0, 1);
  std::memset(&junk_type.type, 0xee, 1);
  in.send(junk_type);
  // Random bytes: whole frames, and headers with our version and any fields.
  std::uniform_int_distribution<int> byte(0, 255), len(0, 200);
  auto random_bytes = [&](size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = char(byte(rng));
    return s;
  };
  for (int i = 0; i < 100; ++i) {
    const std::string frame = random_bytes(size_t(len(rng)));
    MsgHeader h;
    const bool decodes =
        frame.size() == sizeof h && (std::memcpy(&h, frame.data(), sizeof h), h.wire_version == ipc::kWireVersion);
    in.send({frame}, !decodes || !(h.type == MsgType::kStatusRequest && h.role == Role::kClient));
  }
  for (int i = 0; i < 100; ++i) {
    std::string frame = random_bytes(sizeof(MsgHeader));
    MsgHeader h;
    std::memcpy(&h, frame.data(), sizeof h);
    h.wire_version = ipc::kWireVersion;
    const bool status = h.type == MsgType::kStatusRequest && h.role == Role::kClient;
    in.send(i % 2 ? std::vector<std::string>{header_bytes(h)}
                  : std::vector<std::string>{header_bytes(h), random_bytes(size_t(len(rng)) + 1)},
            !status);
  }
}

TEST(MalformedMessages, AreDroppedAndCountedWhileTheRunCompletes) {
  PP_SEEDED_RNG(rng);
  TempDir tmp;
  const fs::path run_dir = tmp / "run", out = tmp / "out", multi_io = data_dir() / "multi_io";
  // One synthesis worker and a slowed prover: 12 proofs of >= 250 ms leave
  // the intruder seconds to talk while the batch is still running.
  auto run = std::async(std::launch::async, [&] {
    return pp_run("--zkey " + quote(multi_io / "circuit.zkey") + " --witness-dir " + quote(multi_io) + " --out " +
                      quote(out) + " --synth-workers 1 --gpu-workers 1 --slots 2 --backend cpu --run-dir " +
                      quote(run_dir),
                  "PROOFPIPE_FAULTS=gpu.mid_compute:delay=250");
  });
  std::atomic<bool> stop{false};
  auto watched = watch_run(
      run_dir, [&] { return stop.load() || run.wait_for(std::chrono::seconds(0)) == std::future_status::ready; });
  ASSERT_TRUE(watched.has_value()) << run.get().output;

  Intruder in("ipc://" + (run_dir / "control").string());
  send_garbage(in, rng);
  // A status request last: its reply comes after the coordinator has taken
  // every message before it off this peer's queue.
  MsgHeader ask;
  ask.type = MsgType::kStatusRequest;
  ask.role = Role::kClient;
  in.send({header_bytes(ask)}, false);
  bool answered = false;
  for (int i = 0; i < 300 && !answered; ++i) {  // other replies (a random status request) may come first
    std::vector<zmq::message_t> reply;
    in.sock.set(zmq::sockopt::rcvtimeo, 100);
    if (!zmq::recv_multipart(in.sock, std::back_inserter(reply))) continue;
    answered = reply.size() == 2 && reply[0].size() == sizeof(MsgHeader) &&
               json::parse(reply[1].to_string(), nullptr, false).contains("partitions");
    if (answered) {
      EXPECT_EQ(json::parse(reply[1].to_string())["pid"].get<long>(), watched->coordinator_pid);
    }
  }
  const auto result = run.get();
  ASSERT_EQ(result.exit_code, 0) << "the coordinator did not survive the intruder:\n" << result.output;
  EXPECT_EQ(result.output.find("Assertion"), std::string::npos) << result.output;
  ASSERT_TRUE(answered) << "the run ended before it answered the intruder's status request: slow it down more";

  const json summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["proved"], 12);
  EXPECT_TRUE(summary["failed"].empty()) << summary["failed"].dump();
  const uint64_t stale = summary["stale_messages_dropped"], malformed = summary["malformed_messages_dropped"];
  std::printf("sent %llu counted messages (%llu malformed); summary: stale %llu, malformed %llu\n",
              (unsigned long long)in.counted, (unsigned long long)in.malformed, (unsigned long long)stale,
              (unsigned long long)malformed);
  EXPECT_GE(malformed, in.malformed);
  EXPECT_GE(stale + malformed, in.counted) << "stale " << stale << " malformed " << malformed;
  const fs::path vk = multi_io / "verification_key.json";
  for (int i = 0; i < 12; ++i) {
    const std::string stem = fmt::format("w{:02}", i);
    SCOPED_TRACE(stem);
    const auto ok = pp_verify(vk, out / (stem + ".public.json"), out / (stem + ".proof.json"));
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
  }
  EXPECT_FALSE(fs::exists(run_dir)) << "run directory left behind";
}

}  // namespace
}  // namespace proofpipe::test
