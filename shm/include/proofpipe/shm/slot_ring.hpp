// SlotRing: the slot state machine over K slot headers (layout.hpp) and the
// payload bytes they describe, plus record_checksum (a tree of checksum64
// streams), the record checksum a writer seals and a consumer verifies.
// A non-owning view: no locks, no waits. Protocol: docs/shm-layout.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "proofpipe/common/status.hpp"
#include "proofpipe/shm/layout.hpp"

namespace proofpipe::shm {

// ---------------------------------------------------------------------------
// checksum64: an xxhash64-style 4-lane multiply-rotate hash (our own
// constants, not compatible with xxhash). It catches torn and corrupted
// records; it is not a MAC and not meant to resist an adversary.
// ---------------------------------------------------------------------------

// Speed of one stream on the 2-core dev VM (bench/record_bench.cpp):
// 15-18 GB/s over 128-512 MiB buffers (4 lanes keep 4
// multiplies in flight). Any split into update() calls gives the
// checksum64() value, so a reader can hash bytes right after copying them.
class Checksum64 {
 public:
  explicit Checksum64(uint64_t seed = 0);
  void update(std::span<const std::byte> bytes);
  uint64_t finish() const;

 private:
  static constexpr size_t kBlock = 32;  // 4 lanes x 8 bytes
  void consume_block(const std::byte* block);

  std::array<uint64_t, 4> lanes_{};
  std::array<std::byte, kBlock> pending_{};
  size_t pending_len_ = 0;
  uint64_t total_len_ = 0;
};

// One-shot form over a whole buffer.
uint64_t checksum64(std::span<const std::byte> bytes, uint64_t seed = 0);

// ---------------------------------------------------------------------------
// record_checksum: the checksum a writer seals and a consumer verifies. One
// checksum64 stream over a whole record is one core's pass: at 2^24 (a 2 GiB
// record) about 0.13 s for the writer after synthesis, and 0.3 s for the GPU
// worker's copy-and-hash before it may release the slot and start the proof
// (7 GB/s on one core here). A two-level tree lets every core take a share:
//
//   payload  | chunk 0 (4 MiB) | chunk 1 (4 MiB) | ... | chunk k-1 (<= 4 MiB) |
//                   |                 |                        |
//   leaves   l_i = checksum64(chunk i, seed + i)     (k >= 1; an empty payload
//                   |                 |               is one empty chunk)
//   record   checksum64(l_0 l_1 ... l_{k-1} as 8-byte little-endian words, seed)
//
// Each leaf covers its chunk's bytes and length, the root the chunk count
// and order (a leaf's seed is its index), so any change to the bytes, their
// order or the length changes the value with probability ~1 - 2^-64.
// ---------------------------------------------------------------------------
inline constexpr size_t kChecksumChunk = size_t(4) << 20;

// The record checksum of `bytes`, leaves hashed across the parallel_for pool.
uint64_t record_checksum(std::span<const std::byte> bytes, uint64_t seed = 0);

// Copies `src` into the consecutive pieces `dst` (their sizes must sum to
// src.size()) and returns record_checksum of the copied bytes. Each chunk is
// hashed in 256 KiB steps right after they are copied, while they are still
// in the core's cache, so the shared bytes are read once; chunks run across
// the parallel_for pool. The consumer's way to take a record out of a slot.
uint64_t copy_with_record_checksum(std::span<const std::byte> src, std::span<const std::span<std::byte>> dst,
                                   uint64_t seed = 0);

// ---------------------------------------------------------------------------
// The slot state machine. Every arrow is ONE compare-and-swap on the slot
// word that expects the exact (state, seat, epoch) and writes epoch + 1.
// w = a writer seat (synth worker), g = a consumer seat (GPU worker).
//
//                      grant(w) [coordinator]
//      +----------+ ----------------------------> +--------------+
//      |          | <---------------------------- |  WRITING(w)  |
//      |          |  reclaim_writing [coordinator,+--------------+
//      |          |    after reaping w]                  |
//      |          |  abort_write [w]                     | seal [w]: publishes
//      |          |                                      v   payload + metadata
//      |   FREE   |  discard [coordinator]: two   +--------------+
//      |          | <--- CASes via QUARANTINED --- |    READY     |
//      |          |   (a record never to prove)   +--------------+
//      |          |                                 |          ^
//      |          |                       claim [g] |          | reclaim_consuming [coordinator,
//      |          |                                 v          |   after reaping g]: the record
//      |          |  release [g]                  +--------------+ is intact, consumed again
//      |          | <---------------------------- | CONSUMING(g) |
//      |          |                               +--------------+
//      |          |  release_quarantined [coord.] +--------------+
//      |          | <---------------------------- | QUARANTINED  | <== quarantine [owner or
//      +----------+                               +--------------+     coordinator], from any
//                                                                      other word
//
// Who may move what (docs/shm-layout.md): only the coordinator grants and
// reclaims, and it reclaims only after it has reaped the owner (waitid): never
// from a live process. The epoch is the fence: an actor that still holds an old
// (seat, epoch) - a zombie, a duplicate message, a stale grant - loses its CAS.
//
// Memory ordering: every CAS is acq_rel (on x86-64 any locked RMW is a full
// barrier, so this costs nothing) and load() is acquire. What depends on it:
//  - seal (release) publishes the payload and metadata; claim (acquire) sees them;
//  - release (release) orders the consumer's last payload read before the
//    coordinator's grant (acq_rel), whose writer checks owns() (acquire) before
//    its first write, so a new record never overwrites bytes still being read.
//
// Concurrency: all methods may be called from any process and thread at once.
// Each transition returns the epoch of the word it wrote when its CAS won, so
// no caller computes epochs itself; nullopt means the slot was not in the
// expected word (someone else moved it, or the caller is stale) and nothing
// was changed. A reclaim that loses logs the word it expected and the one it
// found: the coordinator reclaims only from reaped owners, so that is news.
// Slot indices must be < slot_count() (PP_ASSERT).
class SlotRing {
 public:
  SlotRing() = default;
  // headers: slot_count SlotHeaders; payload: slot_count * slot_size bytes,
  // slot i at payload + i * slot_size. seat_count bounds valid owner seats.
  SlotRing(SlotHeader* headers, uint32_t slot_count, uint32_t seat_count, std::byte* payload, uint64_t slot_size);

  uint32_t slot_count() const { return slot_count_; }
  uint32_t seat_count() const { return seat_count_; }
  uint64_t slot_size() const { return slot_size_; }

  SlotWord load(uint32_t slot) const;  // acquire
  // True iff the slot is exactly `state` owned by (seat, epoch): a writer
  // calls owns(slot, kWriting, seat, epoch) before touching granted bytes.
  bool owns(uint32_t slot, SlotState state, Seat seat, Epoch epoch) const;
  // A word this code can produce: a known state, and an owner seat below
  // seat_count in WRITING/CONSUMING. Anything else is a QUARANTINE case.
  bool is_sane(SlotWord w) const;

  // --- coordinator ------------------------------------------------------
  // FREE@epoch -> WRITING(seat)@epoch+1. Read the FREE word's seat first: it
  // names the consumer that released the slot (see layout.hpp).
  [[nodiscard]] std::optional<Epoch> grant(uint32_t slot, Epoch epoch, Seat seat);
  // WRITING(dead)@epoch -> FREE(kNoSeat)@epoch+1; the partition is requeued.
  [[nodiscard]] std::optional<Epoch> reclaim_writing(uint32_t slot, Seat dead_seat, Epoch epoch);
  // CONSUMING(dead)@epoch -> READY(kNoSeat)@epoch+1; the record is consumed again.
  [[nodiscard]] std::optional<Epoch> reclaim_consuming(uint32_t slot, Seat dead_seat, Epoch epoch);
  // QUARANTINED@epoch -> FREE(kNoSeat)@epoch+1, once its partition is requeued.
  [[nodiscard]] std::optional<Epoch> release_quarantined(uint32_t slot, Epoch epoch);
  // READY@epoch -> QUARANTINED@epoch+1 -> FREE(kNoSeat)@epoch+2: a sealed
  // record that must not be proved (its partition failed for good, or was
  // requeued). Returns the FREE word's epoch; nullopt when the READY word had
  // moved (nothing changed) or, impossibly, the second CAS lost (logged; the
  // slot stays QUARANTINED for the coordinator's scan to free).
  [[nodiscard]] std::optional<Epoch> discard(uint32_t slot, Epoch epoch);

  // --- writer -----------------------------------------------------------
  struct SealInfo {
    uint64_t job_id = 0;
    uint32_t partition_id = 0;
    uint32_t attempt = 0;
    uint64_t payload_len = 0;  // <= slot_size() (PP_ASSERT)
    uint64_t checksum = 0;     // record_checksum of payload(slot).first(payload_len)
  };
  // WRITING(seat)@epoch -> READY(seat)@epoch+1 after storing `info` in the
  // header. Metadata is stored only if the caller owns the slot at that
  // moment, so a stale writer never scribbles over another round's header.
  [[nodiscard]] std::optional<Epoch> seal(uint32_t slot, Seat seat, Epoch epoch, const SealInfo& info);
  // WRITING(seat)@epoch -> FREE(kNoSeat)@epoch+1: the writer gives up (e.g. its
  // witness generator failed); the coordinator requeues as for a reclaim.
  [[nodiscard]] std::optional<Epoch> abort_write(uint32_t slot, Seat seat, Epoch epoch);

  // --- consumer ---------------------------------------------------------
  // READY@epoch -> CONSUMING(seat)@epoch+1. Two consumers racing for one
  // READY word: exactly one wins.
  [[nodiscard]] std::optional<Epoch> claim(uint32_t slot, Seat seat, Epoch epoch);
  // CONSUMING(seat)@epoch -> FREE(seat)@epoch+1, as soon as the payload bytes
  // are no longer needed (after the device upload), not after the proof.
  [[nodiscard]] std::optional<Epoch> release(uint32_t slot, Seat seat, Epoch epoch);

  // --- any actor --------------------------------------------------------
  // expected -> QUARANTINED(expected.seat)@expected.epoch+1, from any word but
  // QUARANTINED itself (an insane word included). Called by the consumer that
  // owns a slot whose verify() failed, or by the coordinator on a scan.
  [[nodiscard]] std::optional<Epoch> quarantine(uint32_t slot, SlotWord expected);

  // --- metadata and payload ---------------------------------------------
  struct Meta {
    uint64_t job_id = 0;
    uint32_t partition_id = 0;
    uint32_t attempt = 0;
    uint64_t payload_len = 0;
    uint64_t checksum = 0;
    Epoch meta_epoch = 0;  // the WRITING epoch under which the writer sealed it
    bool operator==(const Meta&) const = default;
  };
  // The header fields as last stored. Meaningful to a consumer after its
  // claim won (acquire pairs with the seal's release); a snapshot otherwise.
  Meta meta(uint32_t slot) const;
  // The header check alone: payload_len <= slot_size and meta_epoch older
  // than the slot's epoch. For a consumer that checksums the payload itself
  // while copying it out (copy_with_record_checksum: one pass over the bytes
  // instead of two) and then compares with Meta::checksum.
  Result<Meta> check_header(uint32_t slot) const;
  // check_header plus record_checksum over the payload, for a consumer that holds
  // the slot. kBadFormat naming slot, request, partition, attempt and both
  // checksums on a mismatch: quarantine the slot then.
  Result<Meta> verify(uint32_t slot) const;
  // All slot_size() bytes of the slot. Write only while owning it in WRITING.
  std::span<std::byte> payload(uint32_t slot) const;
  // Every slot's payload: one span, slot i at offset i * slot_size() (for a
  // consumer that registers the whole ring once, e.g. page-locks it for DMA).
  std::span<std::byte> payload_segment() const { return {payload_, slot_count_ * slot_size_}; }

 private:
  // One CAS from the exact word `from` to `to`: to.epoch when it won. The
  // word found instead is stored in *found when given.
  std::optional<Epoch> cas(uint32_t slot, SlotWord from, SlotWord to, SlotWord* found = nullptr);
  // For transitions out of FREE/READY/QUARANTINED, whose seat field is
  // history the caller need not know: checks (state, epoch) against the
  // current word, then CASes from that exact word. (slot, epoch) names a
  // unique word, so this is the same single CAS on (state, epoch).
  std::optional<Epoch> cas_from(uint32_t slot, SlotState from, Epoch epoch, SlotWord to);
  // A coordinator reclaim: cas() that logs the word it found when it loses.
  std::optional<Epoch> reclaim(const char* what, uint32_t slot, SlotWord from, SlotWord to);
  SlotHeader& header(uint32_t slot) const;

  SlotHeader* headers_ = nullptr;
  uint32_t slot_count_ = 0;
  uint32_t seat_count_ = 0;
  std::byte* payload_ = nullptr;
  uint64_t slot_size_ = 0;
};

}  // namespace proofpipe::shm
