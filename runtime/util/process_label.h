// "<host> <pid>": how a lock's metadata names the process that holds it, for people and for
// the distlock command (the Redis hash's holder field, a ZooKeeper lock node's data).
#pragma once

#include <string>

namespace distlock::detail {

// Computed once per process.
const std::string& process_label();

}  // namespace distlock::detail
