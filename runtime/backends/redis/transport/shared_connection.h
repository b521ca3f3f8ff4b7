// SPDX-License-Identifier: Apache-2.0
// One connection that many threads send their lock commands on at once. A command is written
// whole as soon as its caller makes it, and one of the callers waiting for a reply reads for all
// of them: a read takes in every reply the server has written, and each goes to the caller it
// is owed to, in the order the commands went out. The server then reads several threads'
// commands at once and answers them in one write, where a connection per thread costs it a
// read and a write for each (design.md, "One connection for the lock commands").
//
// An unawaited command that must be sent again in another form (its script is not in the
// server's cache) is sent again by the reader before it hands out any reply that came after:
// the callers of those can send their next command only after it.
//
// A connection that failed (the socket broke, no reply came within command_timeout, or the
// server closed it while it sat idle, which a write finds before it writes) is broken: every
// command still owed a reply fails with the reason, and it is never used again.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <hiredis/read.h>

#include "backends/redis/transport/command_encoder.h"
#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/server_error.h"

namespace distlock::detail::redis {

class SharedConnection {
 public:
  using Parts = std::initializer_list<std::span<const std::string_view>>;
  // Gets the reply to a command sent by send_unawaited(), or nullptr when the connection broke
  // first. Runs on the thread that read it, holding none of the connection's locks; must not
  // throw. It may send another command.
  using ReplyHandler = std::function<void(SharedConnection&, const redisReply*)>;
  // A command encoded whole: its name, for messages, and what is written.
  struct Encoded {
    std::string name;
    std::string bytes;
  };
  // Given the reply to a command sent by send_unawaited(): the command to send in its place, or
  // nullopt to hand the reply to the handler. Runs on the thread that read the reply, holding
  // the connection's lock; must not throw or wait.
  using Resend = std::function<std::optional<Encoded>(const redisReply&)>;

  // Connects, authenticates and selects the database as Connection does, by `caller_deadline`
  // when that comes before connect_timeout. Throws ServerError.
  SharedConnection(const ConnectionSettings& settings, Address address, std::uint64_t generation,
                   SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  SharedConnection(const SharedConnection&) = delete;
  SharedConnection& operator=(const SharedConnection&) = delete;
  // Reads nothing: the send_unawaited() callers still owed a reply hear that it will not come.
  ~SharedConnection();

  // Sends one command and waits for its reply. An error reply is returned, not thrown; a failed
  // or late exchange throws ServerError and breaks the connection. A caller whose deadline comes
  // before command_timeout (step_deadline) stops waiting then and throws Unanswered: the
  // connection stays sound, the command stays owed, and its reply is read and dropped.
  Reply command(Parts parts, SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // Sends one command and returns without waiting for its reply, which goes to `handler` once a
  // later command's caller has read it, or, with nullptr, once the connection has broken or
  // closed. Throws ServerError, breaking the connection, when the command cannot
  // be written (`handler` is then never called), unless the connection broke just before, when
  // `handler` has heard of it. A reply that `resend` turns into another command is not handed
  // out: the reader writes that command before it hands out any later reply, and its reply
  // goes to `handler`.
  void send_unawaited(Parts parts, ReplyHandler handler, Resend resend = {});
  // The command whose arguments are the parts' arguments, for a Resend to return.
  static Encoded encode(Parts parts);
  // Reads, taking turns with the callers of command(), until every reply owed when it was
  // called has been handed out; at once when none is. A command sent again in another form
  // (Resend) is owed anew, after the call. Never throws: when the connection breaks, the
  // handlers hear of it.
  void read_owed();

  bool broken() const;
  // Why it broke; once broken() (or a handler was given no reply).
  ServerError failure() const;
  // Whether replies are owed to send_unawaited() callers (they are read by the next caller of
  // command(); on a connection nobody uses, by nobody: the release courier asks then).
  bool owes_unawaited() const;
  std::uint64_t generation() const { return connection_.generation(); }
  const std::string& server() const { return connection_.server(); }

 private:
  // A caller waiting in command() for its reply, until `leaves_at` (its deadline, when that
  // comes before command_timeout; else never: its reads time out first).
  struct Caller {
    std::condition_variable woken;
    Reply reply;
    bool answered = false;
    SteadyClock::time_point leaves_at = SteadyClock::time_point::max();
  };
  // A reply on its way: to a waiting caller, or to a send_unawaited() handler.
  struct Owed {
    Caller* caller = nullptr;
    ReplyHandler handler;
    std::string command;  // its name, for messages
    Resend resend;        // for a send_unawaited() command, if given
  };
  struct ReaderFree {
    void operator()(redisReader* reader) const { redisReaderFree(reader); }
  };
  using Handed = std::vector<std::pair<ReplyHandler, Reply>>;

  // Writes the command, with what its reply is owed to. When the write fails, the handlers the
  // failure reaches run after write_mutex_ is released.
  void send(Parts parts, Owed owed);
  enum class Written {
    yes,
    // The connection broke after the command was listed: whoever broke it told its handler.
    told,
    // The connection was broken before, or the write broke it: `owed` is given back.
    no,
  };
  // Lists `owed` and writes `bytes`, under write_mutex_. A failed write breaks the connection;
  // the handlers that learn of it are left in `handed`.
  Written write_locked(std::string_view bytes, Owed& owed, Handed& handed);
  // Writes all of `bytes` (under write_mutex_); the errno of the write that failed, if one did.
  std::optional<int> write_all(std::string_view bytes);
  // Reads until `caller` has its reply or the connection breaks, taking turns at reading with
  // the other callers. Throws ServerError when it broke, Unanswered when the caller left.
  Reply await(Caller& caller);
  // The caller stops waiting: its command stays owed, its reply to be dropped (under mutex_).
  // Returns the command's name.
  std::string leave_locked(Caller& caller);
  // One read: every complete reply it brings in goes where it is owed; the handlers' replies
  // are left in `handed`, to be given outside the lock. Breaks the connection when the read
  // fails, unless it timed out at `reader_leaves_at`, its reader's own deadline, before
  // command_timeout. `lock` holds mutex_, and is released while the read blocks and while a
  // command is sent again.
  void read_and_hand_out(std::unique_lock<std::mutex>& lock, Handed& handed,
                         SteadyClock::time_point reader_leaves_at = SteadyClock::time_point::max());
  // Gives each reply to what it is owed to, in order (under mutex_, reading_ set).
  void hand_out(std::unique_lock<std::mutex>& lock, std::vector<Reply>& replies, Handed& handed);
  // Writes `command` in place of an unawaited one whose reply was read, before the replies
  // after it are handed out: `lock` is released meanwhile, and reading_ stays set, so nobody
  // else reads. `handler` gets its reply, or nullptr if it cannot be sent.
  void send_again(std::unique_lock<std::mutex>& lock, Encoded command, ReplyHandler handler,
                  Handed& handed);
  // Reads the socket once, until `until` at the latest; false when the read failed or timed
  // out (`reason` says which). `may_look`: as Stream::read_some's.
  bool read_replies(std::vector<Reply>& replies, std::string& reason, bool& timed_out,
                    bool may_look, SteadyClock::time_point until);
  // Marks the connection broken for `reason` and fails everything owed (under mutex_); the
  // handlers are left in `handed` with no reply.
  void break_locked(std::string reason, bool timed_out, Handed& handed);
  // Hands the reading on to the next caller still waiting other than `except`, or else to a
  // read_owed() caller, if nobody reads (under mutex_).
  void wake_next_reader_locked(const Caller* except);
  // Gives the handlers their replies; without the locks.
  void give(Handed& handed);

  Connection connection_;  // the setup, the socket, the server's name for messages
  Stream& stream_;         // connection_'s
  const Millis timeout_;
  // One command written at a time, so that owed_ lists them in the order they went out.
  std::mutex write_mutex_;
  CommandEncoder encoder_;  // under write_mutex_
  // Guards the fields below; taken after write_mutex_ when both are held.
  mutable std::mutex mutex_;
  std::deque<Owed> owed_;
  // How many commands were listed in owed_, and how many left it (answered, sent again in
  // another form, or failed): read_owed() waits for the second to reach the first.
  std::uint64_t listed_ = 0;
  std::uint64_t unlisted_ = 0;
  // The read_owed() callers waiting for their turn to read or for their replies.
  std::vector<std::condition_variable*> collectors_;
  // A caller is reading, or handing out what it read; only it uses reader_.
  bool reading_ = false;
  bool broken_ = false;
  std::string failure_reason_;
  bool failure_timed_out_ = false;
  std::unique_ptr<redisReader, ReaderFree> reader_;
};

}  // namespace distlock::detail::redis
