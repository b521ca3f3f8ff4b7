// SPDX-License-Identifier: Apache-2.0
// "<host> <pid>": how a lock's metadata names the process that holds it, for people and for
// the distlock command (the Redis hash's holder field, a ZooKeeper lock node's data).
#pragma once

#include <string>

namespace distlock::detail {

// The pid is read at each call: a process forked after a first call names itself.
std::string process_label();

}  // namespace distlock::detail
