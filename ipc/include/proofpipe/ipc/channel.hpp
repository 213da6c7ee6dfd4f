// ZeroMQ sockets of the control plane (docs/pipeline.md): the coordinator binds a
// ROUTER on an ipc:// endpoint in its private run directory; each worker
// incarnation connects a DEALER whose routing id names it ("synth.2.5": role,
// seat, incarnation), so a restarted worker never inherits its predecessor's
// queue. Each process makes its own context after exec (never across fork).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ipc/messages.hpp"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace proofpipe::ipc {

std::string routing_id(Role role, uint8_t seat, uint32_t incarnation);

// A received message with the peer it came from (ROUTER side).
struct Envelope {
  std::string peer;
  Message message;
};

// Coordinator side.
class Router {
 public:
  static Result<Router> bind(const std::string& endpoint);
  Router(Router&&) noexcept;
  Router& operator=(Router&&) noexcept;
  ~Router();

  // Non-blocking; nullopt when nothing is queued. Malformed frames (wrong
  // size or version) are dropped and counted.
  std::optional<Envelope> try_recv();
  // False when the peer is gone (ROUTER_MANDATORY): the message is dropped,
  // which is fine - the worker's death reaches us through its pidfd.
  bool send(const std::string& peer, const Message& message);
  // Waits up to timeout_ms (-1: no limit) until a message is queued or one of
  // `fds` is readable; the caller then looks at each. An interrupted wait
  // (EINTR) is not an error.
  Status poll(std::span<const int> fds, int timeout_ms);
  // The socket itself, for a poll set of the caller's own.
  void* handle();
  uint64_t dropped() const { return dropped_; }

 private:
  Router();
  std::unique_ptr<zmq::context_t> ctx_;
  std::unique_ptr<zmq::socket_t> sock_;
  uint64_t dropped_ = 0;
};

// Worker side.
class Dealer {
 public:
  static Result<Dealer> connect(const std::string& endpoint, const std::string& routing_id);
  Dealer(Dealer&&) noexcept;
  Dealer& operator=(Dealer&&) noexcept;
  ~Dealer();

  Status send(const Message& message);
  // Waits up to `timeout` for one message; nullopt on timeout.
  Result<std::optional<Message>> recv(std::chrono::milliseconds timeout);

 private:
  Dealer();
  std::unique_ptr<zmq::context_t> ctx_;
  std::unique_ptr<zmq::socket_t> sock_;
};

}  // namespace proofpipe::ipc
