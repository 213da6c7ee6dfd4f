// The service's answer when its queue fails (service/src/service.cpp): a
// fault in the journal or the queue is the service's, never the client's, so
// the API sees kInternal (HTTP 500) or kUnavailable (503), never a code the
// HTTP layer turns into a 4xx (kBadFormat, kInvalidArgument, kNotFound).
#include <gtest/gtest.h>

#include "service.hpp"

namespace proofpipe::test {
namespace {

using namespace proofpipe::service;

// A queue whose every call fails with one error: what a damaged journal page
// (SQLITE_CORRUPT is kBadFormat), a full disk (SQLITE_FULL is
// kResourceExhausted) or a lost server gives the service.
class FailingQueue final : public JobQueue {
 public:
  explicit FailingQueue(ErrorCode code) : code_(code) {}
  Status fault() const { return Status(code_, "journal 'j.db': the injected fault"); }
  Result<SubmitResult> submit(const JobSpec&, double) override { return fault(); }
  Result<std::optional<Job>> get(std::string_view) override { return fault(); }
  Result<std::vector<Job>> list(std::optional<JobState>, size_t) override { return fault(); }
  Result<std::optional<Job>> cancel(std::string_view, double) override { return fault(); }
  Result<uint64_t> depth() override { return fault(); }
  Result<std::vector<WorkItem>> claim(const ClaimRequest&, double) override { return fault(); }
  Result<Renewal> renew(std::span<const Claim>, double) override { return fault(); }
  Result<uint32_t> start_attempt(const Claim&, double) override { return fault(); }
  Status fail_attempt(const Claim&, std::string_view, double) override { return fault(); }
  Status commit(const Claim&, const PartTimes&, const ProofFiles&, double) override { return fault(); }
  Status fail_partition(const Claim&, std::string_view, double) override { return fault(); }
  Status release(const Claim&, double) override { return fault(); }
  Result<std::optional<ProofFiles>> read_proof(std::string_view, std::string_view) override { return fault(); }
  void forget_witnesses(std::string_view) override {}
  Result<size_t> expire(double, size_t) override { return fault(); }
  Result<StoredBytes> stored_bytes() override { return fault(); }

 private:
  ErrorCode code_;
};

// Every read and the cancel, with the queue failing with `given`.
std::vector<Status> answers(ErrorCode given) {
  FailingQueue queue(given);
  ServiceConfig cfg;
  cfg.state_dir = "/nonexistent";
  Service svc(cfg, queue, {});
  return {svc.job("a").status(), svc.jobs(std::nullopt, 10).status(), svc.cancel("a").status(),
          svc.proof("a", "w0").status()};
}

TEST(ServiceFaults, AJournalFaultIsInternalNeverTheClientsError) {
  for (ErrorCode given : {ErrorCode::kBadFormat, ErrorCode::kInvalidArgument, ErrorCode::kNotFound,
                          ErrorCode::kPermissionDenied, ErrorCode::kIo, ErrorCode::kInternal}) {
    for (const Status& st : answers(given)) {
      EXPECT_EQ(st.code(), ErrorCode::kInternal) << st.to_string();
      EXPECT_NE(st.message().find("injected fault"), std::string::npos) << "the cause is kept: " << st.to_string();
    }
  }
}

TEST(ServiceFaults, AnUnreachableQueueOrAFullDiskIsUnavailable) {
  for (ErrorCode given : {ErrorCode::kUnavailable, ErrorCode::kResourceExhausted}) {
    for (const Status& st : answers(given)) EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.to_string();
  }
}

}  // namespace
}  // namespace proofpipe::test
