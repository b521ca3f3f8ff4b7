// SPDX-License-Identifier: Apache-2.0
// A failed exchange with the Redis server, raised where it is not yet known which lock it
// concerns; the backend retells it as a failure on the lock (for_lock).
#pragma once

#include <string>
#include <string_view>

#include <distlock/error.h>

#include "backends/redis/transport/reply.h"

namespace distlock::detail::redis {

// hiredis's (or strerror's) capitalized error text as a reason reads: "connection refused".
std::string reason_text(const char* text);

class ServerError : public BackendUnavailable {
 public:
  ServerError(const std::string& server, std::string reason, bool timed_out = false);
  // The server answered, and refused: asking again would get the same answer (a failed
  // authentication, a script error, a reply nobody expected), where a failure to reach it, or
  // an answer that it cannot serve yet, may pass (outage.h).
  static ServerError refusal(const std::string& server, std::string reason);
  // An error reply that says the server cannot serve it yet (LOADING, READONLY, MASTERDOWN,
  // CLUSTERDOWN, TRYAGAIN, BUSY, NOREPLICAS) is not a refusal; any other is.
  static ServerError of_reply(const std::string& server, std::string reason,
                              const redisReply& reply);

  // The server did not answer in time (as opposed to refusing or dropping the connection).
  bool timed_out() const noexcept { return timed_out_; }
  bool refused() const noexcept { return refused_; }

  BackendUnavailable for_lock(std::string_view lock) const;
  // Throws the same failure told of the lock: Refused for a refusal, else BackendUnavailable.
  [[noreturn]] void throw_for_lock(std::string_view lock) const;

 private:
  bool timed_out_;
  bool refused_ = false;
};

// A refusal (ServerError::refused) told of its lock, for a caller that would otherwise ask
// again (ClusterBackend rides through what is not one).
class Refused : public BackendUnavailable {
 public:
  explicit Refused(const BackendUnavailable& failure) : BackendUnavailable(failure) {}
};

// A cluster node sent the command elsewhere (MOVED or ASK): for the cluster backend, which
// asks the node named, never for the caller.
class Redirected : public ServerError {
 public:
  Redirected(const std::string& server, Redirect redirect);
  const Redirect& redirect() const noexcept { return redirect_; }

 private:
  Redirect redirect_;
};

// Its caller's deadline came before the reply (SharedConnection::command): the command went
// out and may yet run, the connection is sound, and the reply will be dropped.
class Unanswered : public ServerError {
 public:
  using ServerError::ServerError;
};

// A cluster node cannot run a command on several keys of a migrating slot until they are
// all on one side (TRYAGAIN): the cluster backend asks again shortly.
class TryAgain : public ServerError {
 public:
  using ServerError::ServerError;
};

}  // namespace distlock::detail::redis
