// Router and Dealer over cppzmq. Every ZeroMQ exception stops here and becomes
// a Status: callers above this file never see zmq::error_t.
#include "proofpipe/ipc/channel.hpp"

#include <cerrno>
#include <cstring>
#include <iterator>
#include <vector>

#include <fmt/format.h>
#include <zmq.hpp>
#include <zmq_addon.hpp>

namespace proofpipe::ipc {
namespace {

// Parses [header][body?] frames. False for anything else.
bool decode(std::vector<zmq::message_t>& frames, size_t first, Message* out) {
  const size_t n = frames.size() - first;
  if (n < 1 || n > 2 || frames[first].size() != sizeof(MsgHeader)) return false;
  std::memcpy(&out->header, frames[first].data(), sizeof(MsgHeader));
  if (out->header.wire_version != kWireVersion) return false;
  out->body = n == 2 ? frames[first + 1].to_string() : std::string();
  return true;
}

void encode(const Message& m, std::vector<zmq::message_t>& frames) {
  frames.emplace_back(&m.header, sizeof(MsgHeader));
  if (!m.body.empty()) frames.emplace_back(m.body.data(), m.body.size());
}

Status zmq_error(const char* what, const std::string& endpoint, const zmq::error_t& e) {
  return make_error(ErrorCode::kIo, "{} '{}': {}", what, endpoint, e.what());
}

}  // namespace

std::string routing_id(Role role, uint8_t seat, uint32_t incarnation) {
  return fmt::format("{}.{}.{}", role_name(role), seat, incarnation);
}

// ---- Router ----
Router::Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;
Router::~Router() = default;

Result<Router> Router::bind(const std::string& endpoint) {
  Router r;
  try {
    r.ctx_ = std::make_unique<zmq::context_t>(1);
    r.sock_ = std::make_unique<zmq::socket_t>(*r.ctx_, zmq::socket_type::router);
    r.sock_->set(zmq::sockopt::router_mandatory, 1);
    r.sock_->set(zmq::sockopt::linger, 0);
    r.sock_->bind(endpoint);
  } catch (const zmq::error_t& e) {
    return zmq_error("cannot bind control endpoint", endpoint, e);
  }
  return r;
}

std::optional<Envelope> Router::try_recv() {
  for (;;) {
    std::vector<zmq::message_t> frames;
    try {
      if (!zmq::recv_multipart(*sock_, std::back_inserter(frames), zmq::recv_flags::dontwait)) return std::nullopt;
    } catch (const zmq::error_t&) {
      return std::nullopt;
    }
    Envelope env;
    if (frames.size() >= 2 && decode(frames, 1, &env.message)) {
      env.peer = frames[0].to_string();
      return env;
    }
    ++dropped_;
  }
}

bool Router::send(const std::string& peer, const Message& message) {
  std::vector<zmq::message_t> frames;
  frames.emplace_back(peer.data(), peer.size());
  encode(message, frames);
  try {
    return zmq::send_multipart(*sock_, frames, zmq::send_flags::dontwait).has_value();
  } catch (const zmq::error_t&) {
    return false;  // EHOSTUNREACH: the peer is gone
  }
}

Status Router::poll(std::span<const int> fds, int timeout_ms) {
  std::vector<zmq::pollitem_t> items;
  items.reserve(fds.size() + 1);
  items.push_back({sock_->handle(), 0, ZMQ_POLLIN, 0});
  for (int fd : fds) items.push_back({nullptr, fd, ZMQ_POLLIN, 0});
  try {
    zmq::poll(items.data(), items.size(), std::chrono::milliseconds(timeout_ms));
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) return make_error(ErrorCode::kIo, "poll on the control socket: {}", e.what());
  }
  return Status::ok();
}

void* Router::handle() { return sock_->handle(); }

// ---- Dealer ----
Dealer::Dealer() = default;
Dealer::Dealer(Dealer&&) noexcept = default;
Dealer& Dealer::operator=(Dealer&&) noexcept = default;
Dealer::~Dealer() = default;

Result<Dealer> Dealer::connect(const std::string& endpoint, const std::string& id) {
  Dealer d;
  try {
    d.ctx_ = std::make_unique<zmq::context_t>(1);
    d.sock_ = std::make_unique<zmq::socket_t>(*d.ctx_, zmq::socket_type::dealer);
    d.sock_->set(zmq::sockopt::routing_id, id);
    d.sock_->set(zmq::sockopt::linger, 0);
    d.sock_->connect(endpoint);
  } catch (const zmq::error_t& e) {
    return zmq_error("cannot connect to coordinator", endpoint, e);
  }
  return d;
}

Status Dealer::send(const Message& message) {
  std::vector<zmq::message_t> frames;
  encode(message, frames);
  try {
    zmq::send_multipart(*sock_, frames);
  } catch (const zmq::error_t& e) {
    return make_error(ErrorCode::kIo, "send {}: {}", msg_type_name(message.header.type), e.what());
  }
  return Status::ok();
}

Result<std::optional<Message>> Dealer::recv(std::chrono::milliseconds timeout) {
  try {
    zmq::pollitem_t item{sock_->handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, timeout) == 0) return std::optional<Message>();
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(*sock_, std::back_inserter(frames), zmq::recv_flags::dontwait)) {
      return std::optional<Message>();
    }
    Message m;
    if (!decode(frames, 0, &m)) return make_error(ErrorCode::kBadFormat, "malformed message from the coordinator");
    return std::optional<Message>(std::move(m));
  } catch (const zmq::error_t& e) {
    return make_error(ErrorCode::kIo, "receive: {}", e.what());
  }
}

}  // namespace proofpipe::ipc
