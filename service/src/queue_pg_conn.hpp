// One PostgreSQL connection of PgQueue (queue_pg.hpp) and its back-off: a
// call runs its work on the connection under a mutex and turns every libpqxx
// exception into a one-line Status. A lost connection (the server restarted,
// the network broke) is dropped; the first call after the back-off (0.1 s,
// doubling to 5 s) connects again. The engine's connection connects on a
// helper thread, its calls failing at once with kUnavailable and the reason
// until it is up, so the engine never waits on a connect (up to
// PGCONNECT_TIMEOUT against a host that drops packets) and keeps proving
// what it holds; the HTTP threads' connection connects in the call (a
// request may wait; it is not the engine).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>
#include <pqxx/pqxx>

#include "proofpipe/common/status.hpp"
#include "queue_pg.hpp"

namespace proofpipe::service {

struct PgQueue::Conn {
  using Clock = std::chrono::steady_clock;
  static constexpr double kFirstBackoffS = 0.1, kMaxBackoffS = 5;

  Conn(std::string url, std::string role, bool connect_in_background);
  ~Conn();

  // The URL with any password hidden (user:***@, password=***): what
  // messages name.
  const std::string& display() const { return display_; }
  // Connects now (at start): one line naming the URL when it cannot.
  Status connect_now();
  // Empty while connected (or never tried), else why not.
  std::string down_reason() const {
    std::lock_guard lock(down_mu_);
    return down_;
  }

  // Runs `work` on the connection (connecting first when due). `what` names
  // the call in messages.
  template <class T, class Work>
  Result<T> run(const char* what, Work&& work) {
    std::lock_guard lock(mu_);
    // A connection idle across a server restart still looks open until its
    // first statement fails: the HTTP threads' calls then connect again at
    // once and run once more (the failed transaction was rolled back). The
    // engine's call just fails; its next turn finds the new connection.
    for (int tries = 0;; ++tries) {
      if (Status st = ensure(); !st) return st;
      std::string broken;
      try {
        return work(*c_);
      } catch (const pqxx::broken_connection& e) {
        broken = e.what();
      } catch (const pqxx::in_doubt_error& e) {
        return lost(what, e.what());  // it may have committed: never run twice
      } catch (const pqxx::sql_error& e) {
        // Class 08 (connection exception) and 57P0x (the server is shutting
        // down or restarting) are the connection's, not the statement's.
        const std::string state = e.sqlstate();
        if (!(state.rfind("08", 0) == 0 || state.rfind("57P", 0) == 0 || !c_->is_open()))
          return make_error(ErrorCode::kIo, "postgresql {}: {}: {}", display_, what, first_line(e.what()));
        broken = e.what();
      } catch (const std::exception& e) {
        if (c_->is_open())
          return make_error(ErrorCode::kInternal, "postgresql {}: {}: {}", display_, what, first_line(e.what()));
        broken = e.what();
      }
      if (background_ || tries > 0) return lost(what, broken);
      c_.reset();  // and connect again now, in the loop
    }
  }

  // The first line of a libpq or libpqxx message, with the URL's password
  // hidden: libpq repeats a piece of a URL it cannot parse ('invalid
  // percent-encoded token: "<password>"').
  std::string first_line(const std::string& s) const;

 private:
  Status ensure();
  Status lost(const char* what, const std::string& why);

  std::string url_, display_, role_;
  bool background_ = false;
  std::mutex mu_;  // the connection, one call at a time
  std::unique_ptr<pqxx::connection> c_;
  double backoff_s_ = kFirstBackoffS;
  Clock::time_point next_try_{};
  std::thread connector_;       // the reconnect in progress, if any
  mutable std::mutex down_mu_;  // what the connector hands over, and why the connection is down
  std::string down_;
  bool connecting_ = false, connect_failed_ = false;
  std::unique_ptr<pqxx::connection> fresh_;
};

}  // namespace proofpipe::service
