// SPDX-License-Identifier: Apache-2.0
#include "tcp_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <list>
#include <set>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "loopback_socket.h"

namespace distlock::testing {

namespace {

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// ZooKeeper OpCodes that create a node.
bool is_create(std::int32_t type) {
  return type == 1 /*create*/ || type == 15 /*create2*/ || type == 19 /*createContainer*/ ||
         type == 21 /*createTTL*/;
}

// The longest frame the parser accepts; ZooKeeper's own limit is about 1 MB.
constexpr std::uint32_t kMaxFrame = 64u << 20;

// Non-blocking: the proxy's one thread polls every socket.
int connect_upstream(std::uint16_t port) {
  const int fd = connect_loopback(port);
  if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// A ZooKeeper client's first frame is its ConnectRequest: a length no longer than a frame,
// then protocol version 0. Other protocols begin otherwise: Redis with '*', HTTP/2 with "PRI ",
// PostgreSQL's startup and SSL requests with a protocol code that is not 0.
bool speaks_zookeeper(const std::string& first_bytes) {
  return first_bytes.size() >= 8 && big_endian(first_bytes, 0) <= kMaxFrame &&
         big_endian(first_bytes, 4) == 0;
}

}  // namespace

struct TcpProxy::State {
  struct Connection {
    int client = -1;
    int server = -1;  // -1 while held (accepted during a freeze)
    std::string to_client;
    std::string to_server;
    // Whether the connection speaks ZooKeeper, whose frames the proxy reads, or another
    // protocol, whose bytes it passes on as they come; known from the client's first 8 bytes.
    enum class Framing { undecided, zookeeper, raw } framing = Framing::undecided;
    // ZooKeeper framing, client to server: bytes not yet parsed; the first frame of a
    // connection is the ConnectRequest, without a request header.
    std::string request_bytes;
    bool first_request = true;
    // Server to client: whole frames only are forwarded (ZooKeeper); held until the framing
    // is known.
    std::string reply_bytes;
    bool first_reply = true;
    std::set<std::int32_t> cut_xids;
    // cut_after_reply_to: the next bytes from the server are a reply to drop.
    bool cut_at_reply = false;
    bool silenced = false;  // silence_established(): never forwarded again, never closed
    bool dead = false;
  };

  int listener = -1;
  int wake_read = -1;
  int wake_write = -1;
  std::list<Connection> connections;
  bool frozen = false;
  bool refusing = false;
  bool stopping = false;
  // blackhole_connections(): connections to the listener, never accepted, that fill its
  // backlog.
  std::vector<int> backlog_fillers;

  std::string cut_prefix;
  int cut_armed = 0;
  std::string reply_cut_text;
  int reply_cuts_armed = 0;

  // Commands from other threads, run on the proxy's thread.
  mutable std::mutex mutex;
  std::condition_variable done;
  std::deque<std::function<void(State&)>> commands;
  std::uint64_t submitted = 0;
  std::uint64_t completed = 0;
  int create_cuts = 0;       // under mutex
  int reply_cuts = 0;        // under mutex
  int open_connections = 0;  // under mutex

  static void close_connection(Connection& c) {
    if (c.client >= 0) ::close(c.client);
    if (c.server >= 0) ::close(c.server);
    c.client = -1;
    c.server = -1;
    c.dead = true;
  }

  // Moves the server's bytes on to the client: as they are on a raw connection, none while the
  // framing is unknown, and whole frames on a ZooKeeper one, up to the reply of a create to
  // cut after. True when that reply came (it stays in reply_bytes).
  static bool forward_replies(Connection& c) {
    if (c.framing == Connection::Framing::undecided) return false;
    if (c.framing == Connection::Framing::raw) {
      c.to_client += c.reply_bytes;
      c.reply_bytes.clear();
      return false;
    }
    while (c.reply_bytes.size() >= 4) {
      const std::uint32_t length = big_endian(c.reply_bytes, 0);
      if (length > kMaxFrame) {
        c.to_client += c.reply_bytes;
        c.reply_bytes.clear();
        return false;
      }
      if (c.reply_bytes.size() < 4 + std::size_t{length}) return false;
      const std::size_t frame_size = 4 + std::size_t{length};
      if (!c.first_reply && length >= 4 && !c.cut_xids.empty()) {
        const auto xid = static_cast<std::int32_t>(big_endian(c.reply_bytes, 4));
        if (c.cut_xids.contains(xid)) return true;
      }
      c.first_reply = false;
      c.to_client += c.reply_bytes.substr(0, frame_size);
      c.reply_bytes.erase(0, frame_size);
    }
    return false;
  }

  // What came before the create's reply still reaches the client (best effort), then the
  // connection goes.
  static void cut_after_create(State& s, Connection& c) {
    if (!c.to_client.empty()) {
      ::send(c.client, c.to_client.data(), c.to_client.size(), MSG_NOSIGNAL);
    }
    {
      // Counted before the client can see the cut.
      std::lock_guard lock(s.mutex);
      ++s.create_cuts;
      s.done.notify_all();
    }
    close_connection(c);
  }
};

TcpProxy::TcpProxy(std::uint16_t upstream_port)
    : upstream_port_(upstream_port), state_(std::make_unique<State>()) {
  State& s = *state_;
  s.listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s.listener < 0) throw_errno("socket");
  const int one = 1;
  ::setsockopt(s.listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(s.listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(s.listener, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      ::listen(s.listener, 128) != 0) {
    const int error = errno;
    ::close(s.listener);
    throw std::system_error(error, std::generic_category(), "proxy listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(s.listener);
    throw_errno("pipe2");
  }
  s.wake_read = wake[0];
  s.wake_write = wake[1];
  thread_ = std::thread([this] { run(); });
}

TcpProxy::~TcpProxy() {
  execute([](State& s) { s.stopping = true; });
  thread_.join();
  State& s = *state_;
  for (auto& c : s.connections) State::close_connection(c);
  for (const int filler : s.backlog_fillers) ::close(filler);
  ::close(s.listener);
  ::close(s.wake_read);
  ::close(s.wake_write);
}

std::string TcpProxy::address() const { return "127.0.0.1:" + std::to_string(port_); }

void TcpProxy::execute(std::function<void(State&)> command) {
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  s.commands.push_back(std::move(command));
  const std::uint64_t ticket = ++s.submitted;
  const char byte = 1;
  [[maybe_unused]] auto ignored = ::write(s.wake_write, &byte, 1);
  s.done.wait(lock, [&] { return s.completed >= ticket; });
}

void TcpProxy::cut_all() {
  execute([](State& s) {
    for (auto& c : s.connections) State::close_connection(c);
  });
}

void TcpProxy::freeze() {
  execute([](State& s) { s.frozen = true; });
}

void TcpProxy::silence_established() {
  execute([](State& s) {
    for (auto& c : s.connections) c.silenced = true;
  });
}

void TcpProxy::thaw() {
  execute([](State& s) { s.frozen = false; });
}

void TcpProxy::refuse_connections() {
  execute([](State& s) { s.refusing = true; });
}

void TcpProxy::accept_connections() {
  execute([](State& s) { s.refusing = false; });
}

void TcpProxy::blackhole_connections() {
  execute([](State& s) {
    if (!s.backlog_fillers.empty()) return;
    // A backlog of 0 holds one connection; the second filler's SYN already goes unanswered.
    if (::listen(s.listener, 0) != 0) throw_errno("listen");
    sockaddr_in address{};
    socklen_t length = sizeof address;
    if (::getsockname(s.listener, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw_errno("getsockname");
    for (int i = 0; i < 2; ++i) {
      const int filler = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (filler < 0) throw_errno("socket");
      (void)::connect(filler, reinterpret_cast<sockaddr*>(&address), sizeof address);
      s.backlog_fillers.push_back(filler);
    }
  });
}

void TcpProxy::answer_connections() {
  execute([](State& s) {
    for (const int filler : s.backlog_fillers) ::close(filler);
    s.backlog_fillers.clear();
    if (::listen(s.listener, 128) != 0) throw_errno("listen");
  });
}

void TcpProxy::cut_after_create_reply(const std::string& path_prefix, int count) {
  execute([path_prefix, count](State& s) {
    s.cut_prefix = path_prefix;
    s.cut_armed = count;
  });
}

void TcpProxy::cut_after_reply_to(const std::string& text, int count) {
  execute([text, count](State& s) {
    s.reply_cut_text = text;
    s.reply_cuts_armed = count;
  });
}

int TcpProxy::reply_cuts() const {
  std::lock_guard lock(state_->mutex);
  return state_->reply_cuts;
}

int TcpProxy::create_cuts() const {
  std::lock_guard lock(state_->mutex);
  return state_->create_cuts;
}

bool TcpProxy::await_create_cuts(int count, std::chrono::milliseconds limit) {
  std::unique_lock lock(state_->mutex);
  return state_->done.wait_for(lock, limit, [&] { return state_->create_cuts >= count; });
}

int TcpProxy::connections() const {
  std::lock_guard lock(state_->mutex);
  return state_->open_connections;
}

void TcpProxy::run() {
  State& s = *state_;
  std::vector<pollfd> fds;
  std::vector<State::Connection*> owners;  // per pollfd: the connection, or nullptr
  char chunk[65536];

  for (;;) {
    // Commands first.
    {
      std::unique_lock lock(s.mutex);
      while (!s.commands.empty()) {
        auto command = std::move(s.commands.front());
        s.commands.pop_front();
        lock.unlock();
        command(s);
        lock.lock();
        ++s.completed;
      }
      s.done.notify_all();
      if (s.stopping) return;
    }
    // Held connections are forwarded once traffic flows.
    if (!s.frozen) {
      for (auto& c : s.connections) {
        if (!c.dead && c.server < 0) {
          c.server = connect_upstream(upstream_port_);
          if (c.server < 0) State::close_connection(c);
        }
      }
    }
    s.connections.remove_if([](const State::Connection& c) { return c.dead; });
    {
      std::lock_guard lock(s.mutex);
      s.open_connections = static_cast<int>(s.connections.size());
    }

    fds.clear();
    owners.clear();
    fds.push_back({s.wake_read, POLLIN, 0});
    owners.push_back(nullptr);
    // Blackholed, the listener is not accepted from: its full backlog drops new SYNs.
    fds.push_back({s.listener, static_cast<short>(s.backlog_fillers.empty() ? POLLIN : 0), 0});
    owners.push_back(nullptr);
    if (!s.frozen) {
      for (auto& c : s.connections) {
        if (c.silenced) continue;
        fds.push_back(
            {c.client, static_cast<short>(POLLIN | (c.to_client.empty() ? 0 : POLLOUT)), 0});
        owners.push_back(&c);
        fds.push_back(
            {c.server, static_cast<short>(POLLIN | (c.to_server.empty() ? 0 : POLLOUT)), 0});
        owners.push_back(&c);
      }
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      // EINTR; anything else (ENOMEM) is retried too: the thread must stay to run commands.
      continue;
    }
    if (fds[0].revents != 0) {
      while (::read(s.wake_read, chunk, sizeof chunk) > 0) {
      }
    }
    if (fds[1].revents != 0) {
      for (;;) {
        const int client = ::accept4(s.listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (client < 0) break;
        if (s.refusing) {
          ::close(client);
          continue;
        }
        const int one = 1;
        ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        State::Connection c;
        c.client = client;
        if (!s.frozen) {
          c.server = connect_upstream(upstream_port_);
          if (c.server < 0) {
            ::close(client);
            continue;
          }
        }
        s.connections.push_back(std::move(c));
      }
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      State::Connection& c = *owners[i];
      if (c.dead || fds[i].revents == 0) continue;
      const bool from_client = fds[i].fd == c.client;
      if (fds[i].fd != c.client && fds[i].fd != c.server) continue;  // closed meanwhile

      if ((fds[i].revents & POLLOUT) != 0) {
        std::string& out = from_client ? c.to_client : c.to_server;
        const ssize_t n = ::send(fds[i].fd, out.data(), out.size(), MSG_NOSIGNAL);
        if (n > 0) {
          out.erase(0, static_cast<std::size_t>(n));
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
          State::close_connection(c);
          continue;
        }
      }
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::recv(fds[i].fd, chunk, sizeof chunk, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        State::close_connection(c);
        continue;
      }
      if (n < 0) continue;
      const std::string data(chunk, static_cast<std::size_t>(n));
      if (from_client) {
        if (s.reply_cuts_armed > 0 && data.find(s.reply_cut_text) != std::string::npos) {
          c.cut_at_reply = true;
          --s.reply_cuts_armed;
        }
        // Forward as is; note create requests the proxy must cut after.
        c.to_server += data;
        c.request_bytes += data;
        if (c.framing == State::Connection::Framing::undecided &&
            (c.request_bytes.size() >= 8 ||
             (c.request_bytes.size() >= 4 && big_endian(c.request_bytes, 0) > kMaxFrame))) {
          c.framing = speaks_zookeeper(c.request_bytes) ? State::Connection::Framing::zookeeper
                                                        : State::Connection::Framing::raw;
          if (c.framing == State::Connection::Framing::raw) c.request_bytes.clear();
          if (State::forward_replies(c)) {
            State::cut_after_create(s, c);
            continue;
          }
        }
        while (c.framing == State::Connection::Framing::zookeeper && c.request_bytes.size() >= 4) {
          const std::uint32_t length = big_endian(c.request_bytes, 0);
          if (length > kMaxFrame) {
            c.request_bytes.clear();
            break;
          }
          if (c.request_bytes.size() < 4 + std::size_t{length}) break;
          const std::string frame = c.request_bytes.substr(4, length);
          c.request_bytes.erase(0, 4 + std::size_t{length});
          if (c.first_request) {
            c.first_request = false;
            continue;
          }
          if (frame.size() < 12 || s.cut_armed <= 0) continue;
          const auto xid = static_cast<std::int32_t>(big_endian(frame, 0));
          const auto type = static_cast<std::int32_t>(big_endian(frame, 4));
          if (!is_create(type)) continue;
          const std::uint32_t path_length = big_endian(frame, 8);
          if (path_length > frame.size() - 12) continue;
          const std::string path = frame.substr(12, path_length);
          if (path.rfind(s.cut_prefix, 0) != 0) continue;
          c.cut_xids.insert(xid);
          --s.cut_armed;
        }
      } else if (c.cut_at_reply) {
        {
          // Counted before the client can see the cut.
          std::lock_guard lock(s.mutex);
          ++s.reply_cuts;
        }
        State::close_connection(c);
      } else {
        c.reply_bytes += data;
        if (State::forward_replies(c)) State::cut_after_create(s, c);
      }
    }
  }
}

const TcpProxy& ServerProxies::put_before(std::uint16_t port) {
  return *(proxies_[port] = std::make_unique<TcpProxy>(port));
}

std::uint16_t ServerProxies::announced_port(std::uint16_t port) const {
  const auto proxy = proxies_.find(port);
  return proxy == proxies_.end() ? port : proxy->second->port();
}

std::vector<TcpProxy*> ServerProxies::all() const {
  std::vector<TcpProxy*> proxies;
  proxies.reserve(proxies_.size());
  for (const auto& [port, proxy] : proxies_) proxies.push_back(proxy.get());
  return proxies;
}

}  // namespace distlock::testing
