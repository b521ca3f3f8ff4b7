// SPDX-License-Identifier: Apache-2.0
// This process's holds: for each (lock path, owner, side), the node it holds and the
// acquisitions sharing it. Reentrancy is local, as in Curator: a second acquisition by the
// same owner joins the hold; the node goes when the last one is released.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <distlock/spec.h>

namespace distlock::detail::zookeeper {

// Exclusive and write acquisitions share the exclusive side; read ones the shared side. A
// semaphore's permits never reenter: each is a hold of its own, on the permit side, with the
// acquisition id standing for the owner.
enum class Side { exclusive, shared, permit };
constexpr Side side_of(Mode mode) { return mode == Mode::read ? Side::shared : Side::exclusive; }

struct HeldNode {
  std::string node;      // the full path of the contender node
  std::string sequence;  // its sequence number, as in its name
  std::uint64_t fence = 0;
  std::int64_t session = 0;  // the session that owns the (ephemeral) node
};

class Holds {
 public:
  std::optional<HeldNode> find(std::string_view path, std::string_view owner, Side side) const;
  // Records a new hold: `node` was just granted to `acquisition_id`.
  void add(std::string_view path, std::string_view owner, Side side, HeldNode node,
           std::string_view acquisition_id);
  // Adds `acquisition_id` to the hold on `node`; false when that hold is gone meanwhile.
  bool join(std::string_view path, std::string_view owner, Side side, std::string_view node,
            std::string_view acquisition_id);
  // Forgets the hold on `node` (the node is gone) and its acquisitions.
  void forget(std::string_view path, std::string_view owner, Side side, std::string_view node);

  struct Removal {
    bool known = false;             // the acquisition held something
    std::optional<HeldNode> ended;  // it was the hold's last: its node is to be deleted
  };
  Removal remove(std::string_view acquisition_id);
  // The node an acquisition holds.
  std::optional<HeldNode> of(std::string_view acquisition_id) const;
  // Forgets every hold of an ended session (its nodes went with it).
  void drop_session(std::int64_t session);

 private:
  struct Hold {
    HeldNode node;
    std::unordered_set<std::string> acquisitions;
  };
  static std::string key(std::string_view path, std::string_view owner, Side side);
  void erase(std::unordered_map<std::string, Hold>::iterator hold);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Hold> holds_;
  std::unordered_map<std::string, std::string> keys_;  // acquisition id -> hold key
};

}  // namespace distlock::detail::zookeeper
