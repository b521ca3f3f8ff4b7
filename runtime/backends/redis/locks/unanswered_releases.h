// Releases sent without waiting for their reply (a Lease leaving its scope), by lock name, with
// the connection each went out on, until the reply is read. An acquisition of the same name
// from the same client goes out on that connection, after the release: on another connection
// it could reach the server first and find the lock still taken, by its own owner (the
// acquisition would take it over, and the release, coming late, would report a loss).
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backends/redis/transport/connection.h"

namespace distlock::detail::redis {

class UnansweredReleases {
 public:
  void sent(std::string_view lock, const Connection* on);
  void answered(std::string_view lock, const Connection* on);
  // The connection of the unanswered release of `lock`, or nullptr.
  const Connection* connection_of(std::string_view lock) const;
  bool owes(std::string_view lock, const Connection* on) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, const Connection*> sent_on_;
};

}  // namespace distlock::detail::redis
