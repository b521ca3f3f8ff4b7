// Owner tokens: who holds a lock, for reentrancy. One client instance id (random 128 bits)
// plus a per-thread number that is never reused, so a thread that exits while holding a
// lock cannot hand its ownership to a new thread.
#pragma once

#include <string>

namespace distlock::detail {

// 32 hex digits from the system's random source.
std::string make_instance_id();

// "<instance id>:<thread number>" for the calling thread.
std::string owner_token(const std::string& instance_id);

}  // namespace distlock::detail
