// Inspecting and breaking the locks a server keeps, for operators (the `distlock` command) and
// for tools: which locks are held, by which acquisition of which process, since when, for how
// long still, with which fence, who waits; and force-release of a stuck lock.
//
// Not for the locking path: listing walks the server's whole lock space (Redis SCAN, a walk
// of ZooKeeper's lock root), and a force-release takes a lock from a holder that may still be
// working under it (its next renewal finds the lock gone and reports it lost).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/client.h>
#include <distlock/duration.h>

namespace distlock {
namespace detail {
class LockInspector;
}

namespace admin {

// What a hold or a waiter is on its lock.
enum class HoldKind {
  exclusive,  // a plain exclusive lock
  fair,       // an exclusive lock granted in arrival order (Redis: a fair lock that has waiters)
  read,       // a read-write lock's shared side
  write,      // a read-write lock's exclusive side
  semaphore,  // one permit of a semaphore
};

// "exclusive", "fair", "read", "write", "semaphore".
const char* to_string(HoldKind kind);

// Who holds or waits, as far as the server knows it. A holder that wrote no metadata (a
// Curator client on ZooKeeper) leaves the fields empty or zero.
struct Holder {
  std::string acquisition_id;
  std::string host;
  long long pid = 0;
};

struct Hold {
  HoldKind kind = HoldKind::exclusive;
  Holder holder;
  // When the hold was granted (Redis: the holder's clock; ZooKeeper: the server's ctime).
  std::optional<std::chrono::system_clock::time_point> acquired_at;
  // How long the server keeps it without a renewal. None: until the holder's session ends
  // (ZooKeeper).
  std::optional<Millis> time_left;
  std::uint64_t fence = 0;
  // Reentrant holds of the same owner (Redis); 1 otherwise.
  unsigned count = 1;
  // Released, but kept taken for a while by hold_at_least: nobody holds it.
  bool kept = false;
  // Where it lives: the Redis key (and member) or the ZooKeeper node.
  std::string location;
};

struct Waiter {
  HoldKind kind = HoldKind::exclusive;
  Holder holder;
  std::string location;
};

struct LockState {
  std::string name;  // as the runtime writes it: "<type>:<key>", key parts escaped
  std::vector<Hold> holds;
  // In the order they will be granted where the backend keeps an order (ZooKeeper, a Redis
  // fair lock's queue); a read-write lock's waiting writers on Redis in no particular order.
  std::vector<Waiter> waiters;
};

// What a force-release took away.
struct ReleasedHold {
  std::string name;
  Hold hold;
};

class LockAdmin {
 public:
  // Connects as Client::connect does, with the same URLs (memory:// excepted: another
  // process's in-process locks cannot be seen, and ConfigError says so). Throws ConfigError
  // for a bad URL, BackendUnavailable when the server cannot be reached.
  static std::unique_ptr<LockAdmin> connect(std::string_view url, const Options& options = {});

  explicit LockAdmin(std::unique_ptr<detail::LockInspector> inspector);
  ~LockAdmin();
  LockAdmin(const LockAdmin&) = delete;
  LockAdmin& operator=(const LockAdmin&) = delete;

  // The locks held or waited for whose names match `pattern` (a shell glob: `*`, `?`,
  // `[...]`; empty: all), sorted by name.
  std::vector<LockState> list(std::string_view pattern = {});
  // The lock of exactly this name, if anyone holds or waits for it.
  std::optional<LockState> show(std::string_view name);
  // Removes every hold of the lock, or with `acquisition_id` only that acquisition's hold,
  // if it still holds the lock (atomically: a hold granted meanwhile to another acquisition
  // stays). Waiters keep their places and the fence counter is never reset, so the next
  // holder's fence is above every earlier one. Returns what was removed (empty: nothing).
  std::vector<ReleasedHold> force_release(
      std::string_view name, const std::optional<std::string>& acquisition_id = std::nullopt);

  // The server, as messages name it (no password).
  const std::string& server() const;

 private:
  std::unique_ptr<detail::LockInspector> inspector_;
};

}  // namespace admin
}  // namespace distlock
