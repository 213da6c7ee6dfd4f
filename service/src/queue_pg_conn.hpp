// One PostgreSQL connection of PgQueue (queue_pg.hpp) and its back-off: a
// call runs its work on the connection under a mutex and turns every libpqxx
// exception into a one-line Status. A lost connection (the server restarted,
// the network broke) is dropped; the next call after the back-off (0.1 s,
// doubling to 5 s) connects again, and calls in between fail at once with
// kUnavailable and the reason, so the engine keeps proving what it holds.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include <pqxx/pqxx>
#include <spdlog/spdlog.h>

#include "proofpipe/common/status.hpp"
#include "queue_pg.hpp"

namespace proofpipe::service {

struct PgQueue::Conn {
  using Clock = std::chrono::steady_clock;
  static constexpr double kFirstBackoffS = 0.1, kMaxBackoffS = 5;

  Conn(std::string url, std::string role);

  // The URL with any password hidden: what messages name.
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
    if (Status st = ensure(); !st) return st;
    try {
      return work(*c_);
    } catch (const pqxx::broken_connection& e) {
      return lost(what, e.what());
    } catch (const pqxx::in_doubt_error& e) {
      return lost(what, e.what());
    } catch (const pqxx::sql_error& e) {
      // Class 08 (connection exception) and 57P0x (the server is shutting
      // down or restarting) are the connection's, not the statement's.
      const std::string state = e.sqlstate();
      if (state.rfind("08", 0) == 0 || state.rfind("57P", 0) == 0 || !c_->is_open()) return lost(what, e.what());
      return make_error(ErrorCode::kIo, "postgresql {}: {}: {}", display_, what, first_line(e.what()));
    } catch (const std::exception& e) {
      if (!c_->is_open()) return lost(what, e.what());
      return make_error(ErrorCode::kInternal, "postgresql {}: {}: {}", display_, what, first_line(e.what()));
    }
  }

  static std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

 private:
  Status ensure();
  Status lost(const char* what, const std::string& why);

  std::string url_, display_, role_;
  std::mutex mu_;
  std::unique_ptr<pqxx::connection> c_;
  double backoff_s_ = kFirstBackoffS;
  Clock::time_point next_try_{};
  mutable std::mutex down_mu_;
  std::string down_;
};

}  // namespace proofpipe::service
