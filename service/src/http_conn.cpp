// The API server's connections on Boost.Beast over Asio (http_server.hpp):
// two I/O threads serve every connection asynchronously, and the routes
// that call into the core (which may block: intake copies witnesses, a
// cancel waits for the engine) run on a pool of handler threads, so a slow
// client or a slow call never holds an I/O thread. What a client must get
// past, in order, each checked as the bytes arrive:
//   - a connection place: at most cfg.max_connections, and a per-address
//     share of them (1/8 by default); over either, one of kHealthPlaces
//     kept for /healthz and /readyz (kHealthPlacesPerAddress to an
//     address, its request within kHealthHeaderMs, answered and closed;
//     any other route there is 503); past those, 503 and closed at once;
//   - the request line and headers within 16 KiB (Beast's header limit, on
//     a buffer that never grows past 24 KiB) and the header deadline; at
//     most 100 headers;
//   - the token (every route but /healthz), before any body byte is read:
//     401 and the connection closed;
//   - the route and method (404, 405), then the body's framing (a
//     Content-Length, no compression: 411, 415), its size (413) and a
//     large-body place (503), answered before "100 Continue" when asked;
//   - the body at kMinBodyBytesPerSecond after the grace (as Apache's
//     mod_reqtimeout counts it), kMinLargeBodyBytesPerSecond for one that
//     holds a large-body place: slower is 408 and closed. The body is read
//     straight from the socket into the request's one reserved string.
// An answer sent before the body was read closes the connection; closing
// first drains what the client is still sending for up to 1 s (at most
// 64 MiB, in a fixed 16 KiB buffer), so the client reads the answer
// instead of a reset.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http_server.hpp"

namespace proofpipe::service {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kMaxHeaderBytes = 16 * 1024;
constexpr size_t kMaxHeaders = 100;
// The read buffer's cap: a header over 16 KiB fails before this is full,
// and 1024 connections that are all refused mid-header hold at most
// 1024 x (24 + 16) KiB = 40 MiB (the buffer and the parsed fields). Bodies
// are read 24 KiB at a time, which costs little next to the copy into the
// body (about 43,700 reads for 1 GiB).
constexpr size_t kReadBufferBytes = 24 * 1024;
constexpr unsigned kIoThreads = 2;
// Handler threads: as many core calls at once as the server before this
// one allowed (its pool of 8); more would only queue on the core's locks.
constexpr unsigned kHandlerThreads = 8;
constexpr auto kWriteDeadline = std::chrono::seconds(30);
constexpr auto kLingerTime = std::chrono::seconds(1);
constexpr uint64_t kLingerBytes = uint64_t(64) << 20;

}  // namespace

struct Io {
  // Declared before the io_context: the connections its destructor drops
  // give their places back here.
  std::mutex conn_mu;
  unsigned conns = 0, health_conns = 0;  // ordinary places taken; health places taken
  struct Held {
    unsigned places = 0, health = 0;
  };
  std::unordered_map<std::string, Held> per_address;
  std::atomic<bool> stopping{false};
  std::atomic<int> busy{0};  // requests from their handler's start to their answer's last byte
  net::io_context ioc{int(kIoThreads)};
  tcp::acceptor acceptor{ioc};
  net::thread_pool handlers{kHandlerThreads};
  std::vector<std::thread> threads;
};

namespace {

// A connection's place (an ordinary one, or one of the health places),
// given back when the connection ends.
class Place {
 public:
  Place(Io& io, std::string addr, bool health) : io_(io), addr_(std::move(addr)), health_(health) {}
  ~Place() { give_back(); }
  // Once: at the end of the connection, or earlier (a health place, in write()).
  void give_back() {
    std::lock_guard lock(io_.conn_mu);
    if (given_back_) return;
    given_back_ = true;
    Io::Held& mine = io_.per_address[addr_];
    --(health_ ? io_.health_conns : io_.conns);
    --(health_ ? mine.health : mine.places);
    if (mine.places == 0 && mine.health == 0) io_.per_address.erase(addr_);
  }
  Place(const Place&) = delete;
  Place& operator=(const Place&) = delete;
  bool health() const { return health_; }

 private:
  Io& io_;
  std::string addr_;
  bool health_, given_back_ = false;
};

const std::string& too_many_connections() {
  static const std::string kWhy = "too many connections: retry shortly";
  return kWhy;
}

class Conn : public std::enable_shared_from_this<Conn> {
 public:
  Conn(ApiServer::State& st, tcp::socket sock, std::string addr, bool health_place)
      : st_(st),
        io_(*st.io),
        place_(io_, std::move(addr), health_place),
        stream_(std::move(sock)),
        buf_(kReadBufferBytes),
        body_timer_(stream_.get_executor()) {}

  void start() {
    beast::error_code ec;
    stream_.socket().set_option(tcp::no_delay(true), ec);  // an answer's two writes go out at once
    stream_.socket().non_blocking(true, ec);               // read_body's reads never wait
    read_header();
  }

 private:
  void read_header() {
    if (io_.stopping) return close();
    head_.emplace();
    head_->header_limit(kMaxHeaderBytes);
    // The body's size is judged in route() (413 in one line, after the
    // token); the header parser must not refuse it first.
    head_->body_limit(std::numeric_limits<std::uint64_t>::max());
    stream_.expires_after(std::chrono::milliseconds(st_.cfg.header_timeout_ms));
    if (place_.health()) {
      // A health place is for a prober, which sends at once: a connection
      // that idles there hears 503 after kHealthHeaderMs (our own timer:
      // the stream's would close the socket before the answer).
      body_timer_.expires_after(std::chrono::milliseconds(std::min(kHealthHeaderMs, st_.cfg.header_timeout_ms)));
      body_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (ec) return;  // cancelled: the headers came first
        self->header_late_ = true;
        self->stream_.socket().cancel();
      });
    }
    http::async_read_header(stream_, buf_, *head_,
                            [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (place_.health()) {
      body_timer_.cancel();
      if (header_late_) return busy();
    }
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow)
      return refuse(431, fmt::format("the request line and headers are larger than {} bytes", kMaxHeaderBytes));
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::operation_aborted ||
        ec == net::error::connection_reset || ec == net::error::eof)
      return close();
    if (ec) return refuse(400, "malformed HTTP request: " + ec.message());
    const auto& h = head_->get();
    size_t count = 0;
    for (auto it = h.begin(); it != h.end(); ++it) ++count;
    if (count > kMaxHeaders) return refuse(431, fmt::format("a request has at most {} headers", kMaxHeaders));

    req_ = Req{};
    req_.method = std::string(h.method_string());
    split_target(std::string_view(h.target().data(), h.target().size()), req_);
    req_.headers.reserve(count);
    for (const auto& f : h) req_.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    keep_alive_ = h.keep_alive();
    route();
  }

  // Everything that can be decided from the headers alone.
  void route() {
    const bool body_follows = head_->chunked() || head_->content_length().value_or(0) > 0;
    body_sent_ = body_follows;
    const auto early = [&](int status, std::string why) {
      if (body_follows) keep_alive_ = false;
      return refuse(status, std::move(why), !keep_alive_);
    };
    if (!st_.cfg.token.empty() && req_.path != "/healthz") {
      const std::string why = st_.auth_problem(req_);
      if (!why.empty()) {
        res_ = Res{};
        res_.set_header("WWW-Authenticate", "Bearer realm=\"proofpipe\"");
        reply_error(res_, 401, why);
        keep_alive_ = false;
        return write();
      }
    }
    route_ = st_.match(req_);
    if (place_.health()) {
      if (!route_ || !route_->on_io_thread) return busy();
      keep_alive_ = false;  // the place goes back as soon as the answer is out
    }
    if (!route_) return early(404, fmt::format("no such route: {} {}", req_.method, req_.path));
    handler_ = nullptr;
    const std::string verb = req_.method == "HEAD" ? "GET" : req_.method;
    for (const auto& [m, h] : route_->methods)
      if (m == verb) handler_ = &h;
    if (!handler_) {
      res_ = Res{};
      res_.set_header("Allow", route_->allow);
      reply_error(res_, 405,
                  fmt::format("{} is not allowed on {} (allowed: {})", req_.method, req_.path, route_->allow));
      if (body_follows) keep_alive_ = false;
      return write();
    }
    if (req_.method != route_->body_method) {
      if (body_follows) keep_alive_ = false;  // a GET with a body: answered, the body never read
      return run_handler();
    }
    const std::string encoding = req_.header("Content-Encoding");
    if (!encoding.empty() && encoding != "identity")
      return early(415, fmt::format("Content-Encoding '{}' is not accepted: send the body uncompressed", encoding));
    if (head_->chunked() || !req_.has_header("Content-Length"))
      return early(411, "a request body needs a Content-Length (no chunked transfer)");
    const uint64_t length = head_->content_length().value_or(0);
    if (length > st_.cfg.max_body_bytes) return early(413, st_.body_too_large());
    const std::string type = req_.header("Content-Type");
    if (type.rfind("application/json", 0) != 0 && type.rfind("multipart/form-data", 0) != 0)
      return early(415, "send application/json or multipart/form-data");
    place_held_ = std::make_shared<LargeBodyPlace>(st_.large_bodies, st_.cfg.max_large_bodies, length);
    if (place_held_->refused()) {
      place_held_.reset();
      res_ = Res{};
      st_.reply_busy(res_);
      if (body_follows) keep_alive_ = false;
      return write();
    }
    const bool expect_continue = beast::iequals(head_->get()[http::field::expect], "100-continue");
    // The body goes straight from the socket into the request's string
    // (reserved whole: Content-Length is within --max-upload and a place is
    // held), with no parser or buffer in between; what the header read
    // took of it already comes out of buf_ first.
    body_length_ = length;
    req_.body.reserve(length);
    const size_t have = std::min<uint64_t>(buf_.size(), length);
    req_.body.append(static_cast<const char*>(buf_.data().data()), have);
    buf_.consume(have);
    body_start_ = Clock::now();
    if (expect_continue) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      stream_.expires_after(kWriteDeadline);
      return http::async_write(stream_, *cont, [self = shared_from_this(), cont](beast::error_code e, size_t) {
        if (e) return self->close();
        self->read_body();
      });
    }
    read_body();
  }

  void read_body() {
    if (req_.body.size() == body_length_) return run_handler();
    // The deadline grows with what came: the grace, then one second per
    // kMinBodyBytesPerSecond received. A timer of our own rather than the
    // stream's (which closes the socket), so the client still hears 408.
    const uint64_t got = req_.body.size();
    const uint64_t rate = min_body_rate();
    stream_.expires_never();
    body_timer_.expires_at(body_start_ + std::chrono::milliseconds(st_.cfg.body_grace_ms) +
                           std::chrono::milliseconds(got * 1000 / rate));
    body_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return;  // cancelled: the read came first
      self->body_late_ = true;
      self->stream_.socket().cancel();
    });
    // Wait until bytes are there, then take exactly what is there: the
    // string grows by what the kernel holds, so it is never zero-filled
    // ahead of the data.
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
      self->body_timer_.cancel();
      if (self->body_late_) {
        self->keep_alive_ = false;
        return self->refuse(408, fmt::format("the body came slower than {} bytes a second", self->min_body_rate()));
      }
      if (ec) return self->close();
      auto& sock = self->stream_.socket();
      std::string& body = self->req_.body;
      beast::error_code rec;
      const uint64_t at = body.size();
      const size_t want = std::min<uint64_t>(std::max<size_t>(sock.available(rec), 1), self->body_length_ - at);
      body.resize(at + want);
      const size_t n = sock.read_some(net::buffer(body.data() + at, want), rec);
      body.resize(at + n);
      if (rec && rec != net::error::would_block) return self->close();  // EOF or reset mid-body
      self->read_body();
    });
  }

  void run_handler() {
    mark_busy();
    stream_.expires_never();
    auto finish = [self = shared_from_this()](Res res) {
      net::post(self->stream_.get_executor(), [self, res = std::move(res)]() mutable {
        self->res_ = std::move(res);
        self->place_held_.reset();
        self->write();
      });
    };
    const Route::Handler* h = handler_;
    if (route_->on_io_thread) {
      Res res;
      (*h)(req_, res);
      res_ = std::move(res);
      return write();
    }
    net::post(io_.handlers, [self = shared_from_this(), h, finish] {
      Res res;
      try {
        (*h)(self->req_, res);
      } catch (const std::exception& e) {
        res = Res{};
        reply_error(res, 500, std::string("internal error: ") + e.what());
      }
      self->req_.body = std::string();  // the upload is not kept while the answer goes out
      finish(std::move(res));
    });
  }

  uint64_t min_body_rate() const {
    return body_length_ > kLargeBodyBytes ? kMinLargeBodyBytesPerSecond : kMinBodyBytesPerSecond;
  }

  // Over every place this connection may hold: 503, Retry-After, closed.
  void busy() {
    res_ = Res{};
    res_.set_header("Retry-After", "1");
    reply_error(res_, 503, too_many_connections());
    keep_alive_ = false;
    write();
  }

  void refuse(int status, std::string why, bool close_after = true) {
    res_ = Res{};
    reply_error(res_, status, std::move(why));
    if (close_after) keep_alive_ = false;
    write();
  }

  void mark_busy() {
    if (!busy_) ++io_.busy;
    busy_ = true;
  }

  void write() {
    mark_busy();
    auto msg = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(res_.status), 11);
    for (auto& [name, value] : res_.headers) msg->insert(name, value);
    if (!res_.content_type.empty()) msg->set(http::field::content_type, res_.content_type);
    const size_t length = res_.body.size();
    if (req_.method != "HEAD") msg->body() = std::move(res_.body);
    msg->content_length(length);
    msg->keep_alive(keep_alive_ && !io_.stopping);
    // A health place's answer is its last act (a few bytes, into the socket
    // buffer at once; closed without a drain when no body was sent): the
    // place is free before the prober can read the answer and come again.
    if (place_.health() && !msg->keep_alive() && !body_sent_) place_.give_back();
    res_ = Res{};
    stream_.expires_after(kWriteDeadline);
    http::async_write(stream_, *msg, [self = shared_from_this(), msg](beast::error_code ec, size_t) {
      self->done_request();
      if (ec) return self->close();
      // A health place with no body sent has nothing to drain: closed at
      // once, so the place is free for the next probe.
      if (!msg->keep_alive()) return self->place_.health() && !self->body_sent_ ? self->close() : self->linger();
      self->read_header();
    });
  }

  void done_request() {
    if (busy_) --io_.busy;
    busy_ = false;
    req_ = Req{};
  }

  // Half-closes, then reads and drops what the client still sends (bounded
  // in time and bytes), so the answer is read before the socket resets.
  void linger() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    stream_.expires_after(kLingerTime);
    drain_ = std::make_unique<char[]>(kDrainBytes);
    drain();
  }
  void drain() {
    stream_.async_read_some(net::buffer(drain_.get(), kDrainBytes),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kLingerBytes) return self->close();
                              self->drain();
                            });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().close(ec);
  }

  static constexpr size_t kDrainBytes = 16 * 1024;
  ApiServer::State& st_;
  Io& io_;
  Place place_;
  beast::tcp_stream stream_;
  beast::flat_buffer buf_;
  std::optional<http::request_parser<http::empty_body>> head_;
  Req req_;
  Res res_;
  const Route* route_ = nullptr;
  const Route::Handler* handler_ = nullptr;
  std::shared_ptr<LargeBodyPlace> place_held_;
  net::steady_timer body_timer_;  // the body rate (408), or a health place's request deadline
  Clock::time_point body_start_;
  uint64_t body_length_ = 0;
  bool keep_alive_ = true, busy_ = false, body_late_ = false, header_late_ = false, body_sent_ = false;
  std::unique_ptr<char[]> drain_;
  uint64_t drained_ = 0;
};

void accept(ApiServer::State& st) {
  Io& io = *st.io;
  io.acceptor.async_accept(net::make_strand(io.ioc), [&st, &io](beast::error_code ec, tcp::socket sock) {
    if (ec == net::error::operation_aborted || !io.acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors (EMFILE): wait a little rather than spin.
      auto t = std::make_shared<net::steady_timer>(io.ioc, std::chrono::milliseconds(50));
      return t->async_wait([&st, t](beast::error_code) { accept(st); });
    }
    beast::error_code aec;
    const auto peer = sock.remote_endpoint(aec);
    std::string addr = aec ? std::string("?") : peer.address().to_string();
    bool admitted = false, health = false;
    {
      std::lock_guard lock(io.conn_mu);
      const unsigned share = st.cfg.max_connections_per_address
                                 ? st.cfg.max_connections_per_address
                                 : std::max(1u, st.cfg.max_connections / kAddressShareDivisor);
      Io::Held& mine = io.per_address[addr];
      if (io.conns < st.cfg.max_connections && mine.places < share) {
        ++io.conns, ++mine.places, admitted = true;
      } else if (io.health_conns < kHealthPlaces && mine.health < kHealthPlacesPerAddress) {
        ++io.health_conns, ++mine.health, admitted = health = true;
      } else if (mine.places == 0 && mine.health == 0) {
        io.per_address.erase(addr);
      }
    }
    if (admitted) {
      std::make_shared<Conn>(st, std::move(sock), std::move(addr), health)->start();
    } else {
      // Refused without reading: one non-blocking write of a fixed answer.
      static const std::string kBusy = fmt::format(
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
          "Connection: close\r\nContent-Length: {}\r\n\r\n{{\"error\":\"{}\"}}\n",
          too_many_connections().size() + 13, too_many_connections());
      sock.non_blocking(true, aec);
      sock.send(net::buffer(kBusy), 0, aec);
      sock.shutdown(tcp::socket::shutdown_both, aec);
    }
    accept(st);
  });
}

}  // namespace

ApiServer::State::State(ServiceCore& c, ApiConfig cf) : core(c), cfg(std::move(cf)) {}
ApiServer::State::~State() { shutdown(); }

Status ApiServer::State::listen() {
  // Each connection is a descriptor: lift the soft limit toward the hard
  // one so max_connections (and the process's own files) fit, as far as
  // the hard limit allows.
  if (rlimit lim{}; ::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < cfg.max_connections + 256u) {
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, cfg.max_connections + 256u);
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
  io = std::make_unique<Io>();
  beast::error_code ec;
  const auto address = net::ip::make_address(cfg.host, ec);
  if (ec) return Status(ErrorCode::kUnavailable, ec.message());
  const tcp::endpoint ep(address, uint16_t(cfg.port));
  io->acceptor.open(ep.protocol(), ec);
  // SO_REUSEADDR only (never SO_REUSEPORT, which would let a second server
  // of this user bind the same port and take half the requests): a restart
  // over old TIME_WAIT connections.
  if (!ec) io->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) io->acceptor.bind(ep, ec);
  if (!ec) io->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Status(ErrorCode::kUnavailable, ec.message());
  port = io->acceptor.local_endpoint().port();
  return Status::ok();
}

void ApiServer::State::run() {
  accept(*this);
  for (unsigned i = 0; i < kIoThreads; ++i) io->threads.emplace_back([this] { io->ioc.run(); });
}

void ApiServer::State::shutdown() {
  if (!io) return;
  io->stopping = true;
  net::post(io->ioc, [this] {
    beast::error_code ec;
    io->acceptor.close(ec);
  });
  // The requests in progress finish and their answers go out (bounded:
  // a client that does not read its answer meets the write deadline).
  const auto until = Clock::now() + kWriteDeadline;
  while (io->busy.load() > 0 && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  io->handlers.join();
  io->ioc.stop();
  for (auto& t : io->threads) t.join();
  io.reset();  // closes every connection still open (idle keep-alive ones)
}

}  // namespace proofpipe::service
