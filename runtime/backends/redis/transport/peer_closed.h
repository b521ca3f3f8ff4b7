// SPDX-License-Identifier: Apache-2.0
// Whether the server (or a load balancer, or a NAT on the way) has closed a connection that owes
// no replies: Redis closes a client idle past its `timeout`, and a write into that connection
// seems to succeed while the command never runs. Asked before a connection that sat idle is
// used; it costs one system call and no round trip.
#pragma once

namespace distlock::detail::redis {

// True when `socket`, on which no reply is owed, reads as closed or reset. It must owe no
// replies: a reply waiting to be read would make it readable too (and reads as open).
bool peer_closed(int socket);

}  // namespace distlock::detail::redis
