// SPDX-License-Identifier: Apache-2.0
// The locks, and the servers that keep them, as JSON documents for scripts (--json), as
// docs/operations.md shows them. Times are ISO 8601 UTC strings and milliseconds since the
// epoch; durations milliseconds; what the server does not know is null. The one file of the
// subcommands that builds JSON (nlohmann's header is a large one).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <distlock/admin.h>

namespace distlock::cli {

// list: {"server", "locks": [lock...]}
std::string locks_document(const std::string& server, const std::vector<admin::LockState>& locks);
// show: {"server", "lock": lock or null}
std::string lock_document(const std::string& server, const std::optional<admin::LockState>& lock);
// leader: {"server", "election", "leader": hold (its fence the term's epoch) or null,
// "campaigners_waiting"}
std::string leader_document(const std::string& server, const std::string& election,
                            const std::optional<admin::LockState>& lock);
// release: {"server", "name", "released": [hold with its name...]}
std::string released_document(const std::string& server, const std::string& name,
                              const std::vector<admin::ReleasedHold>& released);
// server: {"servers": [{"server", "kind", "version", "maxmemory", "maxmemory_policy",
// "eviction", "reason"}...]}
std::string servers_document(const std::vector<admin::ServerFacts>& servers);
// watch, one line each: the hold or waiter with "event", "name" and "time".
std::string hold_event_line(const char* event, const std::string& name, const admin::Hold& hold);
std::string waiter_event_line(const char* event, const std::string& name,
                              const admin::Waiter& waiter);

}  // namespace distlock::cli
