// PgQueue::Conn (queue_pg_conn.hpp): connecting, and the back-off after a
// connection is lost.
#include <algorithm>
#include <regex>

#include "queue_pg_conn.hpp"

namespace proofpipe::service {

PgQueue::Conn::Conn(std::string url, std::string role)
    : url_(std::move(url)),
      display_(std::regex_replace(url_, std::regex(R"(://([^:/@]*):[^@/]*@)"), "://$1:***@")),
      role_(std::move(role)) {}

Status PgQueue::Conn::connect_now() {
  std::lock_guard lock(mu_);
  try {
    c_ = std::make_unique<pqxx::connection>(url_);
    return Status::ok();
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kUnavailable, "--queue {}: cannot connect: {}", display_, first_line(e.what()));
  }
}

Status PgQueue::Conn::ensure() {
  if (c_ && c_->is_open()) return Status::ok();
  const auto now = Clock::now();
  if (now < next_try_) {
    return make_error(ErrorCode::kUnavailable, "postgresql {}: {} (retrying in {:.1f} s)", display_, down_reason(),
                      std::chrono::duration<double>(next_try_ - now).count());
  }
  try {
    c_ = std::make_unique<pqxx::connection>(url_);
  } catch (const std::exception& e) {
    c_.reset();
    return lost("connect", e.what());
  }
  if (!down_reason().empty()) spdlog::info("postgresql {}: connected again ({} connection)", display_, role_);
  backoff_s_ = kFirstBackoffS;
  std::lock_guard lock(down_mu_);
  down_.clear();
  return Status::ok();
}

Status PgQueue::Conn::lost(const char* what, const std::string& why) {
  c_.reset();
  const std::string line = first_line(why);
  {
    std::lock_guard lock(down_mu_);
    if (down_.empty()) {
      spdlog::warn("postgresql {}: {} connection lost ({}): {}; retrying with back-off", display_, role_, what,
                   line);
    }
    down_ = line.empty() ? "connection lost" : line;
  }
  next_try_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(backoff_s_));
  backoff_s_ = std::min(kMaxBackoffS, backoff_s_ * 2);
  return make_error(ErrorCode::kUnavailable, "postgresql {}: {}: {}", display_, what, line);
}

}  // namespace proofpipe::service
