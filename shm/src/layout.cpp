// Control-segment layout: planning, initialisation and validation (layout.hpp).
// Validation recomputes the plan from (K, slot size, seats) and compares every
// stored offset, so a header from another build or a scribbled one is refused.
#include "proofpipe/shm/layout.hpp"

#include <cstring>

namespace proofpipe::shm {
namespace {

constexpr uint64_t kPage = 4096;

constexpr uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// The control header does not depend on its own values; reject anything that
// cannot have come from plan_layout before trusting counts to size arrays.
Status check_field(const char* what, uint64_t found, uint64_t expected) {
  if (found == expected) return Status::ok();
  return make_error(ErrorCode::kBadFormat, "shm control segment: {} is {}, expected {}", what, found, expected);
}

}  // namespace

const char* slot_state_name(SlotState state) {
  switch (state) {
    case SlotState::kInvalid: return "INVALID";
    case SlotState::kFree: return "FREE";
    case SlotState::kWriting: return "WRITING";
    case SlotState::kReady: return "READY";
    case SlotState::kConsuming: return "CONSUMING";
    case SlotState::kQuarantined: return "QUARANTINED";
  }
  return "UNKNOWN";
}

Result<LayoutPlan> plan_layout(uint32_t slot_count, uint64_t slot_size, uint32_t seat_count) {
  if (slot_count == 0 || slot_count > kMaxSlots) {
    return make_error(ErrorCode::kInvalidArgument, "shm ring: slot count {} is outside 1..{}", slot_count, kMaxSlots);
  }
  if (seat_count == 0 || seat_count > kMaxSeats) {
    return make_error(ErrorCode::kInvalidArgument, "shm ring: seat count {} is outside 1..{}", seat_count, kMaxSeats);
  }
  if (slot_size == 0 || slot_size > kMaxPayloadBytes) {
    return make_error(ErrorCode::kInvalidArgument, "shm ring: slot size {} is outside 1..{}", slot_size,
                      kMaxPayloadBytes);
  }
  LayoutPlan plan;
  plan.slot_count = slot_count;
  plan.seat_count = seat_count;
  plan.slot_size = round_up(slot_size, kSlotAlign);
  // Both factors are bounded (4096 * 2^48 < 2^61): no overflow before the check.
  plan.payload_bytes = uint64_t{slot_count} * plan.slot_size;
  if (plan.payload_bytes > kMaxPayloadBytes) {
    return make_error(ErrorCode::kInvalidArgument, "shm ring: {} slots of {} bytes exceed the {} byte limit",
                      slot_count, plan.slot_size, kMaxPayloadBytes);
  }
  plan.seats_offset = round_up(sizeof(ControlHeader), kCacheLine);
  plan.slots_offset = plan.seats_offset + uint64_t{seat_count} * sizeof(SeatRecord);
  plan.control_bytes = round_up(plan.slots_offset + uint64_t{slot_count} * sizeof(SlotHeader), kPage);
  return plan;
}

void init_control(std::byte* base, const LayoutPlan& plan, uint64_t run_id) {
  // The creator is alone here (no worker has been spawned), so plain stores
  // are fine; only the final magic store must be ordered after them.
  std::memset(base, 0, plan.control_bytes);
  ControlHeader* h = control_header(base);
  h->layout_version = kLayoutVersion;
  h->header_bytes = sizeof(ControlHeader);
  h->run_id = run_id;
  h->slot_count = plan.slot_count;
  h->seat_count = plan.seat_count;
  h->slot_size = plan.slot_size;
  h->payload_bytes = plan.payload_bytes;
  h->payload_offset = 0;
  h->seats_offset = plan.seats_offset;
  h->slots_offset = plan.slots_offset;
  h->control_bytes = plan.control_bytes;
  h->seat_record_bytes = sizeof(SeatRecord);
  h->slot_header_bytes = sizeof(SlotHeader);
  SlotHeader* slots = slot_headers(base, plan);
  for (uint32_t i = 0; i < plan.slot_count; ++i) {
    slots[i].word = SlotWord{SlotState::kFree, kNoSeat, 0}.pack();
  }
  shared_ref(h->magic).store(kControlMagic, std::memory_order_release);
}

Result<LayoutPlan> validate_control(const std::byte* base, uint64_t segment_bytes) {
  if (segment_bytes < sizeof(ControlHeader)) {
    return make_error(ErrorCode::kBadFormat, "shm control segment: {} bytes, smaller than its {} byte header",
                      segment_bytes, sizeof(ControlHeader));
  }
  const auto* h = reinterpret_cast<const ControlHeader*>(base);
  const uint64_t magic = shared_ref(h->magic).load(std::memory_order_acquire);
  if (magic == 0) {
    return make_error(ErrorCode::kBadFormat,
                      "shm control segment: not initialised (magic is 0; creator died mid-setup?)");
  }
  if (magic != kControlMagic) {
    return make_error(ErrorCode::kBadFormat,
                      "shm control segment: bad magic {:#018x}, expected {:#018x} (not a proofpipe ring)", magic,
                      kControlMagic);
  }
  if (h->layout_version != kLayoutVersion) {
    return make_error(ErrorCode::kBadFormat,
                      "shm control segment: layout version {}, this build reads version {} (mixed proofpipe builds?)",
                      h->layout_version, kLayoutVersion);
  }
  PP_RETURN_IF_ERROR(check_field("header size", h->header_bytes, sizeof(ControlHeader)));
  PP_RETURN_IF_ERROR(check_field("seat record size", h->seat_record_bytes, sizeof(SeatRecord)));
  PP_RETURN_IF_ERROR(check_field("slot header size", h->slot_header_bytes, sizeof(SlotHeader)));
  PP_RETURN_IF_ERROR(check_field("payload offset", h->payload_offset, 0));
  if (h->slot_size % kSlotAlign != 0) {
    return make_error(ErrorCode::kBadFormat, "shm control segment: slot size {} is not a multiple of {}", h->slot_size,
                      kSlotAlign);
  }
  auto plan = plan_layout(h->slot_count, h->slot_size, h->seat_count);
  if (!plan.is_ok()) {
    return Status(ErrorCode::kBadFormat, "shm control segment: " + plan.status().message());
  }
  PP_RETURN_IF_ERROR(check_field("payload size", h->payload_bytes, plan->payload_bytes));
  PP_RETURN_IF_ERROR(check_field("seats offset", h->seats_offset, plan->seats_offset));
  PP_RETURN_IF_ERROR(check_field("slots offset", h->slots_offset, plan->slots_offset));
  PP_RETURN_IF_ERROR(check_field("control size", h->control_bytes, plan->control_bytes));
  if (plan->control_bytes > segment_bytes) {
    return make_error(ErrorCode::kBadFormat, "shm control segment: layout needs {} bytes, segment has {}",
                      plan->control_bytes, segment_bytes);
  }
  return plan;
}

}  // namespace proofpipe::shm
