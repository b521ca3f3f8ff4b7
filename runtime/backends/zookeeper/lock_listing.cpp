// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/lock_listing.h"

#include <algorithm>

#include "admin/holder_text.h"
#include "admin/lock_inspector.h"
#include "backends/zookeeper/lock_nodes.h"
#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {
namespace {

using admin::HoldKind;

constexpr std::string_view kMutexChild = "locks";
constexpr std::string_view kLeasesChild = "leases";

HoldKind kind_of(ContenderKind kind) {
  switch (kind) {
    case ContenderKind::read:
      return HoldKind::read;
    case ContenderKind::write:
      return HoldKind::write;
    case ContenderKind::exclusive:
      break;
  }
  return HoldKind::exclusive;
}

Mode mode_of(ContenderKind kind) {
  switch (kind) {
    case ContenderKind::read:
      return Mode::read;
    case ContenderKind::write:
      return Mode::write;
    case ContenderKind::exclusive:
      break;
  }
  return Mode::exclusive;
}

admin::Holder holder_of(const std::string& data) {
  const HolderText text = parse_holder_text(data);
  return admin::Holder{text.last, text.host, text.pid};
}

// The paths of `children` under `parent`.
std::vector<std::string> paths_under(const std::string& parent,
                                     const std::vector<std::string>& children) {
  std::vector<std::string> paths;
  paths.reserve(children.size());
  for (const auto& child : children) paths.push_back(child_path(parent, child));
  return paths;
}

// The paths of the contenders under `parent`, in their order.
std::vector<std::string> paths_of(const std::string& parent,
                                  const std::vector<Contender>& ordered) {
  std::vector<std::string> paths;
  paths.reserve(ordered.size());
  for (const auto& contender : ordered) paths.push_back(child_path(parent, contender.name));
  return paths;
}

bool is_semaphore_child(std::string_view child) {
  return child == kMutexChild || child == kLeasesChild;
}

}  // namespace

admin::Hold hold_of_node(HoldKind kind, const std::string& path, const DataReply& node) {
  admin::Hold hold;
  hold.kind = kind;
  hold.holder = holder_of(node.data);
  hold.acquired_at =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(node.stat.ctime));
  hold.fence = static_cast<std::uint64_t>(node.stat.czxid);
  hold.location = path;
  return hold;
}

LockListing::LockListing(const Requests& requests, Session& session, std::string server)
    : requests_(requests), session_(session), server_(std::move(server)) {}

std::vector<std::string> LockListing::children(std::string_view lock,
                                               const std::string& path) const {
  auto listed = requests_.children(session_, path);
  if (listed.rc == ZNONODE) return {};
  if (listed.rc != ZOK) status::throw_failure(lock, server_, path, listed.rc, "listing " + path);
  return std::move(listed.children);
}

std::vector<DataReply> LockListing::read_nodes(std::string_view lock,
                                               const std::vector<std::string>& paths) const {
  auto replies = requests_.read_all(session_, paths);
  for (std::size_t i = 0; i < replies.size(); ++i)
    if (replies[i].rc != ZOK && replies[i].rc != ZNONODE)
      status::throw_failure(lock, server_, paths[i], replies[i].rc, "reading " + paths[i]);
  return replies;
}

std::vector<std::pair<std::string, std::string>> LockListing::names(
    std::string_view pattern) const {
  std::vector<std::pair<std::string, std::string>> found;
  const auto consider = [&](std::string name, std::string path) {
    if (name_matches(pattern, name)) found.emplace_back(std::move(name), std::move(path));
  };
  const std::string root(kLockRoot);
  for (const auto& type : children("", root)) {
    const std::string type_path = child_path(root, type);
    const std::string type_name = name_part(type);
    const auto below = children("", type_path);
    // A keyless lock's contenders (or a keyless semaphore's children) sit on the type node.
    if (std::any_of(below.begin(), below.end(), [](const std::string& child) {
          return parse_contender(child) || is_semaphore_child(child);
        }))
      consider(type_name, type_path);
    for (const auto& key : below)
      if (!parse_contender(key) && !is_semaphore_child(key))
        consider(type_name + ':' + name_part(key), child_path(type_path, key));
  }
  return found;
}

std::optional<admin::LockState> LockListing::read(const std::string& name,
                                                  const std::string& path) const {
  admin::LockState state;
  state.name = name;
  const auto below = children(name, path);

  // The lock's contenders: the first holds (readers: those with no writer ahead), in order.
  const auto ordered = contenders(below);
  const auto paths = paths_of(path, ordered);
  const auto nodes = read_nodes(name, paths);
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    if (nodes[i].rc != ZOK) continue;  // gone since the listing
    const HoldKind kind = kind_of(ordered[i].kind);
    if (judge(ordered, ordered[i].name, mode_of(ordered[i].kind)).granted)
      state.holds.push_back(hold_of_node(kind, paths[i], nodes[i]));
    else
      state.waiters.push_back(admin::Waiter{kind, holder_of(nodes[i].data), paths[i]});
  }

  // A semaphore: every lease node is a permit held; the mutex's contenders wait for one,
  // except one whose lease is already among them (granted, about to let the mutex go).
  if (std::find(below.begin(), below.end(), kLeasesChild) != below.end()) {
    const std::string leases = semaphore_leases_path(path);
    const auto lease_paths = paths_under(leases, children(name, leases));
    const auto lease_nodes = read_nodes(name, lease_paths);
    const auto first_lease = static_cast<std::ptrdiff_t>(state.holds.size());
    for (std::size_t i = 0; i < lease_nodes.size(); ++i)
      if (lease_nodes[i].rc == ZOK)
        state.holds.push_back(hold_of_node(HoldKind::semaphore, lease_paths[i], lease_nodes[i]));
    // In the order they were granted: the mutex lets one create at a time (semaphore.h).
    std::sort(state.holds.begin() + first_lease, state.holds.end(),
              [](const auto& a, const auto& b) { return a.fence < b.fence; });
  }
  if (std::find(below.begin(), below.end(), kMutexChild) != below.end()) {
    const std::string mutex = semaphore_mutex_path(path);
    const auto mutex_paths = paths_of(mutex, contenders(children(name, mutex)));
    const auto mutex_nodes = read_nodes(name, mutex_paths);
    for (std::size_t i = 0; i < mutex_nodes.size(); ++i) {
      if (mutex_nodes[i].rc != ZOK) continue;
      admin::Waiter waiter{HoldKind::semaphore, holder_of(mutex_nodes[i].data), mutex_paths[i]};
      const bool granted =
          std::any_of(state.holds.begin(), state.holds.end(), [&](const auto& hold) {
            return hold.kind == HoldKind::semaphore && !waiter.holder.acquisition_id.empty() &&
                   hold.holder.acquisition_id == waiter.holder.acquisition_id;
          });
      if (!granted) state.waiters.push_back(std::move(waiter));
    }
  }
  if (state.holds.empty() && state.waiters.empty()) return std::nullopt;
  return state;
}

}  // namespace distlock::detail::zookeeper
