// SPDX-License-Identifier: Apache-2.0
// The shared resource the workers protect: a counter in a small file that checks fencing
// tokens, as a database row updated with "... WHERE fence <= :fence" would.
//
// Every operation carries the caller's fence and runs under flock(), so it is atomic across
// processes (and across threads, each of which opens its own FencedStore). The store keeps
// the highest fence it has seen on any read or write and refuses an operation that carries
// a lower one. Every operation, accepted or refused, is appended to a journal that
// audit() replays afterwards to count what the store let through, independently of the
// store's own bookkeeping.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace distlock::reliability {

enum class StoreOp : std::uint8_t {
  read = 1,
  write = 2,  // a holder's write, through distlock::checked
  undo = 3,   // checked's undo: the write taken back (the lease ran out while it ran)
  probe = 4,  // a write sent on purpose with a fence the holder knows is stale
};

struct StoreRead {
  bool accepted = false;
  std::uint64_t value = 0;
};

struct StoreWrite {
  bool accepted = false;
  // Accepted, but the stored value was not the one the writer had read: an update was lost.
  bool lost_update = false;
};

class FencedStore {
 public:
  // Creates (or empties) the store at `path` (and its journal, `path` + ".journal").
  // Without `fencing` it accepts every operation (--break fencing, a negative control: a
  // resource that ignores fences, whose stale writes the checker must catch).
  static void create(const std::filesystem::path& path, bool fencing = true);

  // Opens the store with descriptors of its own.
  explicit FencedStore(const std::filesystem::path& path);
  ~FencedStore();
  FencedStore(const FencedStore&) = delete;
  FencedStore& operator=(const FencedStore&) = delete;

  // Refused when `fence` is lower than the highest fence seen.
  StoreRead read(int worker, std::uint64_t fence);
  // Sets the value to `value` unless `fence` is lower than the highest fence seen.
  StoreWrite write(int worker, std::uint64_t fence, std::uint64_t expected, std::uint64_t value,
                   StoreOp op = StoreOp::write);
  // Puts `previous` back if the value is still `written` and the fence is still good.
  bool undo(int worker, std::uint64_t fence, std::uint64_t written, std::uint64_t previous);

 private:
  struct State;
  State lock_and_load();
  void store_and_unlock(const State& state);
  void unlock();
  void journal(const State& state, int worker, StoreOp op, std::uint64_t fence,
               std::uint64_t before, std::uint64_t expected, std::uint64_t after, bool accepted);

  std::filesystem::path path_;
  int state_fd_ = -1;
  int journal_fd_ = -1;
};

// What the journal shows, replayed from the first operation to the last.
struct StoreAudit {
  std::uint64_t operations = 0;  // journal records
  std::uint64_t reads = 0;
  std::uint64_t reads_rejected = 0;   // stale reads refused by fencing
  std::uint64_t writes_accepted = 0;  // increments that took effect (writes and probes)
  std::uint64_t writes_rejected = 0;  // stale writes (and probes) refused by fencing
  std::uint64_t probes = 0;           // deliberate stale writes
  std::uint64_t probes_accepted = 0;
  std::uint64_t undos_accepted = 0;
  std::uint64_t lost_updates = 0;  // accepted writes whose expected value was not the stored one
  // Accepted writes carrying a fence lower than one a reader had already used: what fencing
  // exists to prevent. Must be 0.
  std::uint64_t stale_accepted = 0;
  // Holders seen overlapping by the resource: a read and the same holder's next write (or
  // probe) with an operation of another fence in between.
  std::uint64_t interleaved = 0;
  std::uint64_t final_value = 0;
  // final_value == accepted writes - accepted undos, and the state file agrees with the
  // journal.
  bool consistent = false;
  std::string inconsistency;
};

StoreAudit audit_store(const std::filesystem::path& path);

}  // namespace distlock::reliability
