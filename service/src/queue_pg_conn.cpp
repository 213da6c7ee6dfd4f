// PgQueue::Conn (queue_pg_conn.hpp): connecting, and the back-off after a
// connection is lost.
#include <algorithm>

#include <fmt/format.h>

#include "pg_secrets.hpp"
#include "queue_pg_conn.hpp"

namespace proofpipe::service {

PgQueue::Conn::Conn(std::string url, std::string role, bool connect_in_background)
    : url_(std::move(url)),
      display_(hide_passwords(url_, url_)),
      role_(std::move(role)),
      background_(connect_in_background) {}

Status PgQueue::Conn::connect_now() {
  std::lock_guard lock(mu_);  // at start, before any other call: no connector runs
  try {
    c_ = std::make_unique<pqxx::connection>(url_);
    return Status::ok();
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kUnavailable, "--queue {}: cannot connect: {}", display_, first_line(e.what()));
  }
}

std::string PgQueue::Conn::first_line(const std::string& s) const {
  return hide_passwords(s.substr(0, s.find('\n')), url_);
}

PgQueue::Conn::~Conn() {
  if (connector_.joinable()) connector_.join();  // at most PGCONNECT_TIMEOUT
}

Status PgQueue::Conn::ensure() {
  if (c_ && c_->is_open()) return Status::ok();
  std::unique_lock down(down_mu_);
  if (fresh_) {  // the connector succeeded
    c_ = std::move(fresh_);
    down_.clear();
    down.unlock();
    if (connector_.joinable()) connector_.join();  // it has finished: it handed the connection over
    backoff_s_ = kFirstBackoffS;
    spdlog::info("postgresql {}: connected again ({} connection)", display_, role_);
    return Status::ok();
  }
  if (connect_failed_) {  // the connector gave up: wait out the next back-off
    connect_failed_ = false;
    next_try_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(backoff_s_));
    backoff_s_ = std::min(kMaxBackoffS, backoff_s_ * 2);
  }
  const std::string why = down_.empty() ? "not connected" : down_;
  const auto now = Clock::now();
  if (!connecting_ && now >= next_try_) {
    if (connector_.joinable()) connector_.join();  // it has finished: connecting_ is false
    connecting_ = true;
    auto connect = [this] {
      std::unique_ptr<pqxx::connection> c;
      std::string error;
      try {
        c = std::make_unique<pqxx::connection>(url_);
      } catch (const std::exception& e) {
        error = first_line(e.what());
      }
      std::lock_guard lock(down_mu_);
      connecting_ = false;
      if (c) {
        fresh_ = std::move(c);
      } else {
        connect_failed_ = true;
        down_ = error.empty() ? "cannot connect" : error;
      }
    };
    if (!background_) {
      down.unlock();
      connect();
      return ensure();  // installs it, or applies the back-off
    }
    connector_ = std::thread(connect);
    return make_error(ErrorCode::kUnavailable, "postgresql {}: {} (reconnecting)", display_, why);
  }
  return make_error(ErrorCode::kUnavailable, "postgresql {}: {} ({})", display_, why,
                    connecting_
                        ? std::string("reconnecting")
                        : fmt::format("retrying in {:.1f} s", std::chrono::duration<double>(next_try_ - now).count()));
}

Status PgQueue::Conn::lost(const char* what, const std::string& why) {
  c_.reset();
  const std::string line = first_line(why);
  {
    std::lock_guard lock(down_mu_);
    if (down_.empty()) {
      spdlog::warn("postgresql {}: {} connection lost ({}): {}; retrying with back-off", display_, role_, what, line);
    }
    down_ = line.empty() ? "connection lost" : line;
  }
  next_try_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(backoff_s_));
  backoff_s_ = std::min(kMaxBackoffS, backoff_s_ * 2);
  return make_error(ErrorCode::kUnavailable, "postgresql {}: {}: {}", display_, what, line);
}

}  // namespace proofpipe::service
