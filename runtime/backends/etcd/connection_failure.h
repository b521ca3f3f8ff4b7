// SPDX-License-Identifier: Apache-2.0
// gRPC's reason for a call that found no connection, told in words where gRPC's are a TLS
// library's or say only that a socket closed: a TLS failure says it is TLS and why, and a
// connection closed by a server of the other kind (TLS or not) says which scheme to use.
#pragma once

#include <string>

#include "backends/etcd/settings.h"

namespace distlock::detail::etcd {

// `reason` as it is when it is not a failure to connect, or not one of those above.
std::string connection_failure(const EtcdSettings& settings, const std::string& reason);

}  // namespace distlock::detail::etcd
