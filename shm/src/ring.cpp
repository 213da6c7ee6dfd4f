// Ring (ring.hpp): creating, opening and unlinking a run's two segments, and
// the seat records. Creation order is payload first, control last: the large
// allocation is the one likely to fail, and a control segment only ever
// exists (magic set) once its payload does.
#include "proofpipe/shm/ring.hpp"

#include <sys/random.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/sizes.hpp"

namespace proofpipe::shm {
namespace {

constexpr uint64_t pack_owner(uint32_t pid, uint32_t incarnation) { return (uint64_t{incarnation} << 32) | pid; }

// Removes a segment on the failure paths of create(); the original error is
// what the caller needs, so a failed cleanup is not reported over it.
void discard(const std::string& name) { (void)Segment::unlink(name); }

}  // namespace

Result<uint64_t> make_run_id() {
  uint64_t id = 0;
  while (id == 0) {
    const ssize_t got = ::getrandom(&id, sizeof(id), 0);
    if (got != static_cast<ssize_t>(sizeof(id))) {
      if (got < 0 && errno == EINTR) continue;
      return make_error(ErrorCode::kIo, "getrandom for the run id: {}", std::strerror(errno));
    }
  }
  return id;
}

std::string ring_prefix(uint64_t run_id) { return fmt::format("/proofpipe-{:016x}", run_id); }

std::string ring_prefix(long pid, uint64_t run_id) { return fmt::format("/proofpipe-{}-{:016x}", pid, run_id); }

std::optional<RingName> parse_ring_name(std::string_view name) {
  if (name.starts_with('/')) name.remove_prefix(1);
  constexpr std::string_view kHead = "proofpipe-";
  if (!name.starts_with(kHead)) return std::nullopt;
  name.remove_prefix(kHead.size());
  RingName r;
  const char* end = name.data() + name.size();
  auto [pid_end, pid_ec] = std::from_chars(name.data(), end, r.pid);
  if (pid_ec != std::errc() || r.pid <= 0 || pid_end == end || *pid_end != '-') return std::nullopt;
  name.remove_prefix(size_t(pid_end - name.data()) + 1);
  constexpr size_t kRunDigits = 16;
  if (name.size() < kRunDigits + 1 || name[kRunDigits] != '-') return std::nullopt;
  auto [run_end, run_ec] = std::from_chars(name.data(), name.data() + kRunDigits, r.run_id, 16);
  if (run_ec != std::errc() || run_end != name.data() + kRunDigits) return std::nullopt;
  name.remove_prefix(kRunDigits + 1);
  if (name != "ctl" && name != "data") return std::nullopt;
  r.segment = std::string(name);
  return r;
}

uint64_t monotonic_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
}

Ring::Ring(Segment control, Segment data, const LayoutPlan& plan)
    : control_(std::move(control)),
      data_(std::move(data)),
      seats_(seat_records(control_.data(), plan)),
      seat_count_(plan.seat_count),
      run_id_(control_header(control_.data())->run_id),
      slots_(slot_headers(control_.data(), plan), plan.slot_count, plan.seat_count, data_.data(), plan.slot_size) {}

Result<Ring> Ring::create(std::string_view name_prefix, uint32_t slot_count, uint64_t slot_size, uint32_t seat_count,
                          uint64_t run_id) {
  const std::string ctl_name = control_name(name_prefix);
  const std::string dat_name = data_name(name_prefix);
  PP_RETURN_IF_ERROR(Segment::check_name(ctl_name));
  PP_RETURN_IF_ERROR(Segment::check_name(dat_name));
  PP_ASSIGN_OR_RETURN(const LayoutPlan plan, plan_layout(slot_count, slot_size, seat_count));

  PP_ASSIGN_OR_RETURN(Segment data, Segment::create(dat_name, plan.payload_bytes));
  auto control = Segment::create(ctl_name, plan.control_bytes);
  if (!control.is_ok()) {
    discard(dat_name);
    return control.status();
  }
  init_control(control->data(), plan, run_id);
  return Ring(std::move(control).value(), std::move(data), plan);
}

Result<Ring> Ring::open(std::string_view name_prefix) {
  const std::string ctl_name = control_name(name_prefix);
  PP_ASSIGN_OR_RETURN(Segment control, Segment::open(ctl_name));
  auto plan = validate_control(control.data(), control.size());
  if (!plan.is_ok()) return Status(plan.status().code(), ctl_name + ": " + plan.status().message());
  PP_ASSIGN_OR_RETURN(Segment data, Segment::open(data_name(name_prefix)));
  if (data.size() < plan->payload_bytes) {
    return make_error(ErrorCode::kBadFormat, "shm segment {}: {} bytes, the control header says {} ({} slots of {})",
                      data.name(), data.size(), plan->payload_bytes, plan->slot_count, plan->slot_size);
  }
  return Ring(std::move(control), std::move(data), *plan);
}

Status Ring::unlink(std::string_view name_prefix) {
  Status first;
  for (const std::string& name : {control_name(name_prefix), data_name(name_prefix)}) {
    Status st = Segment::unlink(name);
    if (!st.is_ok() && st.code() != ErrorCode::kNotFound && first.is_ok()) first = std::move(st);
  }
  return first;
}

std::string Ring::describe() const {
  return fmt::format("{} slots x {} = {} (run {:#018x}, {} seats)", slot_count(), format_size(slot_size()),
                     format_size(uint64_t{slot_count()} * slot_size()), run_id_, seat_count_);
}

SeatRecord& Ring::seat(Seat seat) const {
  PP_ASSERT(seat < seat_count_, "seat index out of range");
  return seats_[seat];
}

void Ring::set_seat_owner(Seat s, uint32_t pid, uint32_t incarnation) {
  // Reset the beat and phase first, so the new owner is never judged by the
  // old one's age, nor held to the working deadline during its set-up.
  shared_ref(seat(s).last_beat_ms).store(monotonic_ms(), std::memory_order_relaxed);
  shared_ref(seat(s).phase).store(uint64_t(SeatPhase::kSetup), std::memory_order_relaxed);
  shared_ref(seat(s).pid_incarnation).store(pack_owner(pid, incarnation), std::memory_order_release);
}

void Ring::clear_seat(Seat s) { shared_ref(seat(s).pid_incarnation).store(0, std::memory_order_release); }

void Ring::beat(Seat s, uint64_t now_ms) {
  // Relaxed: a beat orders nothing, it is only a timestamp.
  shared_ref(seat(s).last_beat_ms).store(now_ms, std::memory_order_relaxed);
}

void Ring::set_seat_phase(Seat s, SeatPhase phase) {
  shared_ref(seat(s).phase).store(uint64_t(phase), std::memory_order_relaxed);
}

SeatStatus Ring::seat_status(Seat s) const {
  const uint64_t owner = shared_ref(seat(s).pid_incarnation).load(std::memory_order_acquire);
  SeatStatus st;
  st.pid = uint32_t(owner & 0xFFFFFFFFu);
  st.incarnation = uint32_t(owner >> 32);
  st.last_beat_ms = shared_ref(seat(s).last_beat_ms).load(std::memory_order_relaxed);
  st.phase = SeatPhase(shared_ref(seat(s).phase).load(std::memory_order_relaxed));
  return st;
}

}  // namespace proofpipe::shm
