// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/status.h"

#include <cctype>

#include <zookeeper/zookeeper.h>

namespace distlock::detail::zookeeper::status {

std::string reason(int rc) {
  if (rc == kNoReply) return "no reply within the command timeout";
  std::string text = zerror(rc);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text + " (" + std::to_string(rc) + ")";
}

bool connection_trouble(int rc) {
  // ZSESSIONMOVED: the session moved to another server meanwhile; the request was dropped.
  return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONMOVED || rc == kNoReply;
}

bool session_gone(int rc) {
  return rc == ZSESSIONEXPIRED || rc == ZINVALIDSTATE || rc == ZCLOSING || rc == ZAUTHFAILED;
}

BackendUnavailable unavailable(std::string_view lock, std::string_view server,
                               std::string_view reason) {
  return BackendUnavailable(std::string(lock), std::string(server), std::string(reason));
}

void throw_failure(std::string_view lock, std::string_view server, std::string_view path, int rc,
                   const std::string& doing) {
  if (rc == ZNOAUTH)
    throw ConfigError(std::string(lock), std::string(server),
                      doing + ": ZooKeeper refused access to " + std::string(path) +
                          " (its nodes belong to another user; connect with the credentials "
                          "that created them)");
  throw unavailable(lock, server, doing + ": " + reason(rc));
}

}  // namespace distlock::detail::zookeeper::status
