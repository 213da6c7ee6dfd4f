// SlotRing (slot_ring.hpp): each transition is one CAS on the slot word; the
// model test (tests/engine/slot_model_test.cpp) drives exactly this code. Also
// checksum64: 4 lanes of rotl(lane + word * kMulA, 31) * kMulB over 32-byte
// blocks, then the tail, the length, and a murmur-style finaliser; and
// record_checksum, a tree of checksum64 leaves hashed across the threads.
#include "proofpipe/shm/slot_ring.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include <spdlog/spdlog.h>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/parallel.hpp"

namespace proofpipe::shm {

// ---------------------------------------------------------------------------
// checksum64
// ---------------------------------------------------------------------------
namespace {

// Odd 64-bit constants with about half their bits set; any such pair mixes
// well under multiply-rotate. kMulA is 2^64 / golden ratio.
constexpr uint64_t kMulA = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMulB = 0xD6E8FEB86659FD93ull;
constexpr uint64_t kMulC = 0xA0761D6478BD642Full;

inline uint64_t load_u64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));  // unaligned-safe; one mov on x86-64
  return v;
}

inline uint64_t round(uint64_t lane, uint64_t word) { return std::rotl(lane + word * kMulA, 31) * kMulB; }

inline uint64_t finalise(uint64_t h) {
  h ^= h >> 33;
  h *= kMulB;
  h ^= h >> 29;
  h *= kMulC;
  h ^= h >> 32;
  return h;
}

}  // namespace

Checksum64::Checksum64(uint64_t seed) : lanes_{seed + kMulA + kMulB, seed + kMulB, seed, seed - kMulA} {}

void Checksum64::consume_block(const std::byte* block) {
  for (size_t i = 0; i < 4; ++i) lanes_[i] = round(lanes_[i], load_u64(block + 8 * i));
}

void Checksum64::update(std::span<const std::byte> bytes) {
  const std::byte* p = bytes.data();
  size_t n = bytes.size();
  total_len_ += n;
  if (pending_len_ > 0) {
    const size_t take = std::min(n, kBlock - pending_len_);
    std::memcpy(pending_.data() + pending_len_, p, take);
    pending_len_ += take;
    p += take;
    n -= take;
    if (pending_len_ < kBlock) return;
    consume_block(pending_.data());
    pending_len_ = 0;
  }
  for (; n >= kBlock; p += kBlock, n -= kBlock) consume_block(p);
  if (n > 0) {
    std::memcpy(pending_.data(), p, n);
    pending_len_ = n;
  }
}

uint64_t Checksum64::finish() const {
  uint64_t h = std::rotl(lanes_[0], 1) + std::rotl(lanes_[1], 7) + std::rotl(lanes_[2], 12) + std::rotl(lanes_[3], 18);
  const std::byte* p = pending_.data();
  size_t n = pending_len_;
  for (; n >= 8; p += 8, n -= 8) h = std::rotl(h ^ round(0, load_u64(p)), 27) * kMulA + kMulC;
  for (; n > 0; ++p, --n) h = std::rotl(h ^ (uint64_t(std::to_integer<uint8_t>(*p)) * kMulC), 11) * kMulA;
  return finalise(h ^ total_len_);
}

uint64_t checksum64(std::span<const std::byte> bytes, uint64_t seed) {
  Checksum64 c(seed);
  c.update(bytes);
  return c.finish();
}

// ---------------------------------------------------------------------------
// record_checksum (the tree drawn in slot_ring.hpp)
// ---------------------------------------------------------------------------
namespace {

static_assert(std::endian::native == std::endian::little, "the leaves are hashed as little-endian words");

// The tree over a record of `bytes`: leaf(seed + i, off, end) hashes chunk
// i, the bytes [off, end); the leaves run across the pool and the root
// hashes them in order. Both public forms below are this with their leaf.
template <class Leaf>
uint64_t tree_checksum(size_t bytes, uint64_t seed, const Leaf& leaf) {
  std::vector<uint64_t> leaves(bytes == 0 ? 1 : (bytes + kChecksumChunk - 1) / kChecksumChunk);
  parallel_for(leaves.size(), [&](size_t i) {
    const size_t off = i * kChecksumChunk;
    leaves[i] = leaf(seed + i, off, std::min(off + kChecksumChunk, bytes));
  });
  return checksum64(std::as_bytes(std::span(leaves)), seed);
}

}  // namespace

uint64_t record_checksum(std::span<const std::byte> bytes, uint64_t seed) {
  return tree_checksum(bytes.size(), seed, [&](uint64_t leaf_seed, size_t off, size_t end) {
    return checksum64(bytes.subspan(off, end - off), leaf_seed);
  });
}

uint64_t copy_with_record_checksum(std::span<const std::byte> src, std::span<const std::span<std::byte>> dst,
                                   uint64_t seed) {
  // starts[p]: the offset in src where dst[p] begins.
  std::vector<size_t> starts(dst.size() + 1, 0);
  for (size_t p = 0; p < dst.size(); ++p) starts[p + 1] = starts[p] + dst[p].size();
  PP_ASSERT(starts.back() == src.size(), "the pieces must cover the record exactly");
  constexpr size_t kStep = size_t(256) << 10;  // copied, then hashed while it is in L2
  return tree_checksum(src.size(), seed, [&](uint64_t leaf_seed, size_t off, size_t end) {
    Checksum64 sum(leaf_seed);
    size_t p = size_t(std::upper_bound(starts.begin(), starts.end(), off) - starts.begin()) - 1;
    while (off < end) {
      while (starts[p + 1] <= off) ++p;  // skip the pieces that end here (empty ones too)
      const size_t in_piece = off - starts[p];
      const size_t len = std::min({end - off, dst[p].size() - in_piece, kStep});
      std::memcpy(dst[p].data() + in_piece, src.data() + off, len);
      sum.update(dst[p].subspan(in_piece, len));
      off += len;
    }
    return sum.finish();
  });
}

// ---------------------------------------------------------------------------
// SlotRing
// ---------------------------------------------------------------------------
namespace {

constexpr auto kCasOrder = std::memory_order_acq_rel;

constexpr Epoch next(Epoch e) { return (e + 1) & SlotWord::kEpochMask; }

}  // namespace

SlotRing::SlotRing(SlotHeader* headers, uint32_t slot_count, uint32_t seat_count, std::byte* payload,
                   uint64_t slot_size)
    : headers_(headers), slot_count_(slot_count), seat_count_(seat_count), payload_(payload), slot_size_(slot_size) {
  PP_ASSERT(headers != nullptr && payload != nullptr, "slot ring over null memory");
  PP_ASSERT(seat_count <= kMaxSeats, "seat count must leave 0xFF free for kNoSeat");
}

SlotHeader& SlotRing::header(uint32_t slot) const {
  PP_ASSERT(slot < slot_count_, "slot index out of range");
  return headers_[slot];
}

SlotWord SlotRing::load(uint32_t slot) const {
  return SlotWord::unpack(shared_ref(header(slot).word).load(std::memory_order_acquire));
}

bool SlotRing::owns(uint32_t slot, SlotState state, Seat seat, Epoch epoch) const {
  return load(slot) == SlotWord{state, seat, epoch};
}

bool SlotRing::is_sane(SlotWord w) const {
  if (!is_known_state(w.state)) return false;
  const bool owned = w.state == SlotState::kWriting || w.state == SlotState::kConsuming;
  if (owned) return w.seat < seat_count_;
  return w.seat < seat_count_ || w.seat == kNoSeat;
}

std::optional<Epoch> SlotRing::cas(uint32_t slot, SlotWord from, SlotWord to, SlotWord* found) {
  uint64_t expected = from.pack();
  if (shared_ref(header(slot).word)
          .compare_exchange_strong(expected, to.pack(), kCasOrder, std::memory_order_acquire)) {
    return to.epoch;
  }
  if (found != nullptr) *found = SlotWord::unpack(expected);
  return std::nullopt;
}

std::optional<Epoch> SlotRing::cas_from(uint32_t slot, SlotState from, Epoch epoch, SlotWord to) {
  const SlotWord now = load(slot);
  if (now.state != from || now.epoch != epoch) return std::nullopt;
  return cas(slot, now, to);
}

std::optional<Epoch> SlotRing::reclaim(const char* what, uint32_t slot, SlotWord from, SlotWord to) {
  SlotWord found;
  const auto won = cas(slot, from, to, &found);
  if (!won) {
    spdlog::warn("{} of slot {} lost: expected {} seat {} epoch {} ({:#x}), found {} seat {} epoch {} ({:#x})", what,
                 slot, slot_state_name(from.state), from.seat, from.epoch, from.pack(), slot_state_name(found.state),
                 found.seat, found.epoch, found.pack());
  }
  return won;
}

std::optional<Epoch> SlotRing::grant(uint32_t slot, Epoch epoch, Seat seat) {
  if (seat >= seat_count_) return std::nullopt;
  return cas_from(slot, SlotState::kFree, epoch, {SlotState::kWriting, seat, next(epoch)});
}

std::optional<Epoch> SlotRing::reclaim_writing(uint32_t slot, Seat dead_seat, Epoch epoch) {
  return reclaim("reclaim_writing", slot, {SlotState::kWriting, dead_seat, epoch},
                 {SlotState::kFree, kNoSeat, next(epoch)});
}

std::optional<Epoch> SlotRing::reclaim_consuming(uint32_t slot, Seat dead_seat, Epoch epoch) {
  return reclaim("reclaim_consuming", slot, {SlotState::kConsuming, dead_seat, epoch},
                 {SlotState::kReady, kNoSeat, next(epoch)});
}

std::optional<Epoch> SlotRing::release_quarantined(uint32_t slot, Epoch epoch) {
  return cas_from(slot, SlotState::kQuarantined, epoch, {SlotState::kFree, kNoSeat, next(epoch)});
}

std::optional<Epoch> SlotRing::discard(uint32_t slot, Epoch epoch) {
  const SlotWord now = load(slot);
  if (now.state != SlotState::kReady || now.epoch != epoch) return std::nullopt;
  const auto quarantined = quarantine(slot, now);
  if (!quarantined) return std::nullopt;
  const auto freed = release_quarantined(slot, *quarantined);
  if (!freed) spdlog::warn("discard of slot {}: QUARANTINED@{} moved before its release", slot, *quarantined);
  return freed;
}

std::optional<Epoch> SlotRing::seal(uint32_t slot, Seat seat, Epoch epoch, const SealInfo& info) {
  PP_ASSERT(info.payload_len <= slot_size_, "sealed payload longer than the slot");
  const SlotWord mine{SlotState::kWriting, seat, epoch};
  // Owner check before the stores: a stale writer (old epoch) must not touch
  // the header of a round it no longer owns. A live owner cannot lose the slot
  // between this check and the CAS: only the coordinator takes WRITING slots,
  // and only from reaped owners.
  if (load(slot) != mine) return std::nullopt;
  SlotHeader& h = header(slot);
  // Relaxed stores: the seal CAS below (release) is what publishes them.
  shared_ref(h.job_id).store(info.job_id, std::memory_order_relaxed);
  shared_ref(h.partition_id).store(info.partition_id, std::memory_order_relaxed);
  shared_ref(h.attempt).store(info.attempt, std::memory_order_relaxed);
  shared_ref(h.payload_len).store(info.payload_len, std::memory_order_relaxed);
  shared_ref(h.checksum).store(info.checksum, std::memory_order_relaxed);
  shared_ref(h.meta_epoch).store(epoch, std::memory_order_relaxed);
  return cas(slot, mine, {SlotState::kReady, seat, next(epoch)});
}

std::optional<Epoch> SlotRing::abort_write(uint32_t slot, Seat seat, Epoch epoch) {
  return cas(slot, {SlotState::kWriting, seat, epoch}, {SlotState::kFree, kNoSeat, next(epoch)});
}

std::optional<Epoch> SlotRing::claim(uint32_t slot, Seat seat, Epoch epoch) {
  if (seat >= seat_count_) return std::nullopt;
  return cas_from(slot, SlotState::kReady, epoch, {SlotState::kConsuming, seat, next(epoch)});
}

std::optional<Epoch> SlotRing::release(uint32_t slot, Seat seat, Epoch epoch) {
  return cas(slot, {SlotState::kConsuming, seat, epoch}, {SlotState::kFree, seat, next(epoch)});
}

std::optional<Epoch> SlotRing::quarantine(uint32_t slot, SlotWord expected) {
  if (expected.state == SlotState::kQuarantined) return std::nullopt;
  return cas(slot, expected, {SlotState::kQuarantined, expected.seat, next(expected.epoch)});
}

SlotRing::Meta SlotRing::meta(uint32_t slot) const {
  const SlotHeader& h = header(slot);
  Meta m;
  m.job_id = shared_ref(h.job_id).load(std::memory_order_relaxed);
  m.partition_id = shared_ref(h.partition_id).load(std::memory_order_relaxed);
  m.attempt = shared_ref(h.attempt).load(std::memory_order_relaxed);
  m.payload_len = shared_ref(h.payload_len).load(std::memory_order_relaxed);
  m.checksum = shared_ref(h.checksum).load(std::memory_order_relaxed);
  m.meta_epoch = shared_ref(h.meta_epoch).load(std::memory_order_relaxed);
  return m;
}

Result<SlotRing::Meta> SlotRing::check_header(uint32_t slot) const {
  const SlotWord w = load(slot);
  const Meta m = meta(slot);
  if (m.payload_len > slot_size_) {
    return make_error(ErrorCode::kBadFormat,
                      "slot {} (request {} partition {} attempt {}): payload length {} exceeds slot size {}", slot,
                      m.job_id, m.partition_id, m.attempt, m.payload_len, slot_size_);
  }
  if (m.meta_epoch >= w.epoch) {
    return make_error(ErrorCode::kBadFormat, "slot {}: metadata epoch {} is not older than the slot's epoch {} ({})",
                      slot, m.meta_epoch, w.epoch, slot_state_name(w.state));
  }
  return m;
}

Result<SlotRing::Meta> SlotRing::verify(uint32_t slot) const {
  PP_ASSIGN_OR_RETURN(const Meta m, check_header(slot));
  const uint64_t actual = record_checksum(payload(slot).first(m.payload_len));
  if (actual != m.checksum) {
    return make_error(ErrorCode::kBadFormat,
                      "slot {} (request {} partition {} attempt {}): payload checksum {:#018x} does not match header "
                      "{:#018x} over {} bytes",
                      slot, m.job_id, m.partition_id, m.attempt, actual, m.checksum, m.payload_len);
  }
  return m;
}

std::span<std::byte> SlotRing::payload(uint32_t slot) const {
  PP_ASSERT(slot < slot_count_, "slot index out of range");
  return {payload_ + uint64_t{slot} * slot_size_, slot_size_};
}

}  // namespace proofpipe::shm
