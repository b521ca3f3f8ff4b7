// SPDX-License-Identifier: Apache-2.0
// A TCP proxy on a loopback port in front of one server, for provoking network failures:
// cut every connection, freeze traffic (a partition: nothing passes, new connections hang),
// silence the connections open now while new ones pass (a NAT that forgot them),
// drop new connections' SYNs (a blackhole: connecting hangs), refuse new connections (while a
// server restarts: a ZooKeeper that is still starting accepts connections and leaves them
// unanswered, and its clients wait two thirds of their session timeout before they try again), or,
// speaking ZooKeeper's framing, let a create request through and cut the connection when its reply
// comes back, so that the node exists but its creator never hears of it. A connection whose client
// does not begin as a ZooKeeper client does (Redis, HTTP/2 for etcd's gRPC, PostgreSQL) is passed
// on byte for byte.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace distlock::testing {

// How a group of servers (Sentinel's, a Cluster) is reached: directly, or each server through a
// TcpProxy of the group's own whose address the servers announce (Sentinel and Cluster tell
// their clients where to connect), so that a fault made on the proxies stands between a client
// and every server it reaches.
enum class ServerReach { direct, through_proxies };

class TcpProxy {
 public:
  // Listens on a free loopback port and forwards each connection to 127.0.0.1:upstream_port.
  explicit TcpProxy(std::uint16_t upstream_port);
  // Closes everything and stops the proxy's thread.
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  std::uint16_t port() const { return port_; }
  // "127.0.0.1:<port>"
  std::string address() const;

  // Closes every connection now (both sides). New connections are forwarded as before.
  void cut_all();
  // A partition: from now on nothing is read or written on any connection, and new
  // connections are accepted but not forwarded.
  void freeze();
  // The connections open now go silent for good, without a word to either end (a NAT or a load
  // balancer that forgot them, a host gone): nothing more passes on them. New connections are
  // forwarded as before.
  void silence_established();
  // Ends freeze(): traffic flows again, connections accepted meanwhile are forwarded.
  void thaw();
  // From now on, new connections are closed as soon as they are accepted (the client sees its
  // connection fail at once and tries again), until accept_connections(). Existing
  // connections are left alone.
  void refuse_connections();
  void accept_connections();
  // From now on, new connections never complete (a host that drops SYNs: the client's connect
  // hangs until its own timeout), until answer_connections(). The listener's backlog is shrunk
  // and filled, which makes Linux drop further SYNs. Existing connections are left alone.
  void blackhole_connections();
  void answer_connections();
  // ZooKeeper: the next `count` create requests (create, create2, createContainer,
  // createTTL) for a path starting with `path_prefix` are forwarded; when the server's reply
  // to one arrives, it is dropped and that connection is cut (both sides).
  void cut_after_create_reply(const std::string& path_prefix, int count = 1);
  // Connections cut by cut_after_create_reply so far.
  int create_cuts() const;
  // Waits until create_cuts() reaches `count`; false after `limit`.
  bool await_create_cuts(int count, std::chrono::milliseconds limit);
  // Redis (or any request-reply protocol without framing the proxy reads): the next `count`
  // requests whose bytes, as one read from the client brings them, contain `text` are
  // forwarded; the server's next bytes on each such connection, its reply, are dropped and that
  // connection is cut (both sides). So the command ran, and its sender never hears of it.
  void cut_after_reply_to(const std::string& text, int count = 1);
  // Connections cut by cut_after_reply_to so far.
  int reply_cuts() const;
  // Connections currently open (client side).
  int connections() const;

 private:
  struct State;
  void run();
  // Runs `command` on the proxy's thread and waits until it has.
  void execute(std::function<void(State&)> command);

  std::uint16_t upstream_port_;
  std::uint16_t port_ = 0;
  std::unique_ptr<State> state_;
  std::thread thread_;
};

// The proxies in front of a group's servers (ServerReach::through_proxies), each found by its
// server's own port.
class ServerProxies {
 public:
  // Puts a proxy in front of the server on `port`.
  const TcpProxy& put_before(std::uint16_t port);
  // Takes away the proxy in front of the server on `port` (a server killed).
  void remove(std::uint16_t port) { proxies_.erase(port); }
  // The port the server on `port` is known by: its proxy's, or its own without one.
  std::uint16_t announced_port(std::uint16_t port) const;
  std::vector<TcpProxy*> all() const;

 private:
  std::map<std::uint16_t, std::unique_ptr<TcpProxy>> proxies_;
};

}  // namespace distlock::testing
