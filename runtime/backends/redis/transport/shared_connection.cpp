// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/shared_connection.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

namespace distlock::detail::redis {
namespace {

std::string command_name(SharedConnection::Parts parts) {
  for (const auto part : parts)
    if (!part.empty()) return std::string(part.front());
  return {};
}

}  // namespace

SharedConnection::SharedConnection(const ConnectionSettings& settings, Address address,
                                   std::uint64_t generation,
                                   SteadyClock::time_point caller_deadline)
    : connection_(settings, std::move(address), generation, caller_deadline),
      stream_(connection_.stream()),
      timeout_(settings.command_timeout),
      reader_(redisReaderCreate()) {
  if (!reader_) throw ServerError(settings.server, "cannot read replies: out of memory");
}

SharedConnection::~SharedConnection() {
  Handed handed;
  {
    std::lock_guard lock(mutex_);
    break_locked("the connection closed before the reply came", false, handed);
  }
  give(handed);
}

bool SharedConnection::broken() const {
  std::lock_guard lock(mutex_);
  return broken_;
}

bool SharedConnection::owes_unawaited() const {
  std::lock_guard lock(mutex_);
  return std::any_of(owed_.begin(), owed_.end(),
                     [](const Owed& owed) { return owed.caller == nullptr; });
}

Reply SharedConnection::command(Parts parts, SteadyClock::time_point caller_deadline) {
  Caller caller;
  const auto until = step_deadline(caller_deadline, timeout_);
  if (cut_by_caller(until, caller_deadline, timeout_)) caller.leaves_at = until;
  send(parts, Owed{&caller, {}, command_name(parts), {}});
  return await(caller);
}

void SharedConnection::send_unawaited(Parts parts, ReplyHandler handler, Resend resend) {
  send(parts, Owed{nullptr, std::move(handler), command_name(parts), std::move(resend)});
}

SharedConnection::Encoded SharedConnection::encode(Parts parts) {
  CommandEncoder encoder;
  return {command_name(parts), std::string(encoder.encode(parts))};
}

void SharedConnection::read_owed() {
  Handed handed;
  std::condition_variable woken;
  std::unique_lock lock(mutex_);
  const std::uint64_t last = listed_;
  const auto all_answered = [&] { return broken_ || unlisted_ >= last; };
  if (all_answered()) return;
  collectors_.push_back(&woken);
  while (!all_answered()) {
    if (reading_) {
      woken.wait(lock);
      continue;
    }
    read_and_hand_out(lock, handed);
    if (handed.empty()) continue;
    wake_next_reader_locked(nullptr);
    lock.unlock();
    give(handed);
    lock.lock();
  }
  collectors_.erase(std::find(collectors_.begin(), collectors_.end(), &woken));
  wake_next_reader_locked(nullptr);
}

void SharedConnection::send(Parts parts, Owed owed) {
  const bool awaited = owed.caller != nullptr;
  Handed handed;
  Written written = Written::yes;
  {
    std::lock_guard write_lock(write_mutex_);
    written = write_locked(encoder_.encode(parts), owed, handed);
  }
  if (written == Written::yes) return;
  // A handler runs the user's log and event callbacks: the next caller must not wait for them
  // to write, only to learn that the connection broke.
  give(handed);
  // An unawaited command's handler that has heard of the failure is not told twice. An unsent
  // command's caller learns of the failure from the exception.
  if (written == Written::told && !awaited) return;
  throw failure();
}

SharedConnection::Written SharedConnection::write_locked(std::string_view bytes, Owed& owed,
                                                         Handed& handed) {
  {
    std::lock_guard lock(mutex_);
    if (broken_) return Written::no;
    // Nobody reads while nothing is owed, so a readable socket means the server closed it
    // while it sat idle: a command written now would be taken in and never run.
    if (owed_.empty() && !reading_ && stream_.peer_closed()) {
      std::string tls_failure = stream_.tls_failure();
      break_locked(tls_failure.empty() ? "the server closed the connection while it was idle"
                                       : std::move(tls_failure),
                   false, handed);
      return Written::no;
    }
    owed_.push_back(std::move(owed));
    ++listed_;
  }
  const std::optional<int> failed = write_all(bytes);
  if (!failed) return Written::yes;
  const int error = *failed;
  std::lock_guard lock(mutex_);
  // A reader broke it first, and has told every command owed, this one included.
  if (broken_) return Written::told;
  // This command is the last one owed: nobody else writes meanwhile, and its reply cannot have
  // come.
  owed = std::move(owed_.back());
  owed_.pop_back();
  ++unlisted_;
  break_locked(is_timeout(error) ? "cannot send " + owed.command + " within " +
                                       std::to_string(timeout_.count()) + " ms (command_timeout)"
                                 : "sending a command: " + stream_.error_text(error),
               is_timeout(error), handed);
  return Written::no;
}

std::optional<int> SharedConnection::write_all(std::string_view bytes) {
  return stream_.write_all(bytes, SteadyClock::now() + timeout_);
}

Reply SharedConnection::await(Caller& caller) {
  Handed handed;
  std::unique_lock lock(mutex_);
  while (!caller.answered && !broken_) {
    if (SteadyClock::now() >= caller.leaves_at)
      throw Unanswered(connection_.server(),
                       "no reply to " + leave_locked(caller) + " by the caller's deadline", true);
    if (reading_) {
      if (caller.leaves_at == SteadyClock::time_point::max())
        caller.woken.wait(lock);
      else
        caller.woken.wait_until(lock, caller.leaves_at);
      continue;
    }
    read_and_hand_out(lock, handed, caller.leaves_at);
    if (handed.empty()) continue;
    // A handler runs the user's log and event callbacks: another caller reads meanwhile, so
    // that none of them waits for one of those to return.
    wake_next_reader_locked(&caller);
    lock.unlock();
    give(handed);
    lock.lock();
  }
  wake_next_reader_locked(&caller);
  if (!caller.answered) throw failure();
  return std::move(caller.reply);
}

std::string SharedConnection::leave_locked(Caller& caller) {
  const auto owed = std::find_if(owed_.begin(), owed_.end(),
                                 [&](const Owed& entry) { return entry.caller == &caller; });
  owed->caller = nullptr;
  owed->handler = [](SharedConnection&, const redisReply*) {};
  // It may have been the one to read next.
  wake_next_reader_locked(&caller);
  return owed->command;
}

void SharedConnection::read_and_hand_out(std::unique_lock<std::mutex>& lock, Handed& handed,
                                         SteadyClock::time_point reader_leaves_at) {
  reading_ = true;
  // Several threads awaiting replies: each sleeps while it waits, and the reader with them, so
  // that the CPU goes to the threads that have work (Stream::read_some).
  const bool alone = std::count_if(owed_.begin(), owed_.end(),
                                   [](const Owed& owed) { return owed.caller != nullptr; }) <= 1;
  lock.unlock();
  std::vector<Reply> replies;
  std::string reason;
  bool timed_out = false;
  const auto own_end = SteadyClock::now() + timeout_;
  const bool read =
      read_replies(replies, reason, timed_out, alone, std::min(own_end, reader_leaves_at));
  lock.lock();
  hand_out(lock, replies, handed);
  reading_ = false;
  // A collector may now read, or have its replies.
  for (auto* collector : collectors_) collector->notify_one();
  // The reader's deadline, not the server, ended the read: the others read on.
  if (!read && timed_out && reader_leaves_at < own_end) return;
  if (!read) {
    if (timed_out && !owed_.empty())
      reason = "no reply to " + owed_.front().command + " within " +
               std::to_string(timeout_.count()) + " ms (command_timeout)";
    break_locked(std::move(reason), timed_out, handed);
  }
}

void SharedConnection::hand_out(std::unique_lock<std::mutex>& lock, std::vector<Reply>& replies,
                                Handed& handed) {
  for (auto& reply : replies) {
    // Broken while a command was sent again: break_locked has told everything still owed.
    if (broken_) return;
    if (owed_.empty()) {
      break_locked("a reply came that no command was owed", false, handed);
      return;
    }
    if (is_error(*reply) && reply_text(*reply).starts_with("READONLY")) {
      // The master this connection was made for is a replica now: nothing written here would
      // count, so the connection goes and the callers ask where the master is.
      break_locked(connection_.address().describe() +
                       " answers as a replica (READONLY): the master has moved; " +
                       describe_reply(*reply),
                   false, handed);
      return;
    }
    Owed owed = std::move(owed_.front());
    owed_.pop_front();
    ++unlisted_;
    if (owed.caller != nullptr) {
      owed.caller->reply = std::move(reply);
      owed.caller->answered = true;
      owed.caller->woken.notify_one();
      continue;
    }
    if (owed.resend) {
      // Sent again here, not by the handler: a caller whose reply comes after this one could
      // otherwise send its next command first (a scope exit's release resent after NOSCRIPT,
      // overtaken by the same thread's next acquisition of the lock).
      if (std::optional<Encoded> again = owed.resend(*reply)) {
        send_again(lock, std::move(*again), std::move(owed.handler), handed);
        continue;
      }
    }
    handed.emplace_back(std::move(owed.handler), std::move(reply));
  }
}

void SharedConnection::send_again(std::unique_lock<std::mutex>& lock, Encoded command,
                                  ReplyHandler handler, Handed& handed) {
  Owed owed{nullptr, std::move(handler), std::move(command.name), {}};
  // write_mutex_ is taken before mutex_.
  lock.unlock();
  Written written = Written::yes;
  {
    std::lock_guard write_lock(write_mutex_);
    written = write_locked(command.bytes, owed, handed);
  }
  lock.lock();
  if (written == Written::no) handed.emplace_back(std::move(owed.handler), nullptr);
}

bool SharedConnection::read_replies(std::vector<Reply>& replies, std::string& reason,
                                    bool& timed_out, bool may_look, SteadyClock::time_point until) {
  char buffer[kStreamReadSize];
  const ssize_t n = stream_.read_some(buffer, sizeof buffer, until, may_look);
  if (n <= 0) {
    const int error = errno;
    timed_out = n < 0 && is_timeout(error);
    reason = n == 0 ? std::string("the server closed the connection")
                    : "waiting for a reply: " + stream_.error_text(error);
    return false;
  }
  if (redisReaderFeed(reader_.get(), buffer, static_cast<std::size_t>(n)) != REDIS_OK) {
    reason = "reading a reply: " + reason_text(reader_->errstr);
    return false;
  }
  while (true) {
    void* reply = nullptr;
    if (redisReaderGetReply(reader_.get(), &reply) != REDIS_OK) {
      reason = "reading a reply: " + reason_text(reader_->errstr);
      return false;
    }
    if (reply == nullptr) return true;
    replies.emplace_back(static_cast<redisReply*>(reply));
  }
}

void SharedConnection::break_locked(std::string reason, bool timed_out, Handed& handed) {
  if (broken_) return;
  broken_ = true;
  failure_reason_ = std::move(reason);
  failure_timed_out_ = timed_out;
  // A caller blocked in a read returns from it at once.
  stream_.shutdown();
  std::deque<Owed> lost;
  lost.swap(owed_);
  unlisted_ += lost.size();
  for (auto* collector : collectors_) collector->notify_one();
  for (auto& owed : lost) {
    if (owed.caller != nullptr)
      owed.caller->woken.notify_one();
    else
      handed.emplace_back(std::move(owed.handler), nullptr);
  }
}

void SharedConnection::wake_next_reader_locked(const Caller* except) {
  if (reading_) return;
  for (const auto& owed : owed_)
    if (owed.caller != nullptr && owed.caller != except) {
      owed.caller->woken.notify_one();
      return;
    }
  // Only collectors are left to read what is owed.
  if (!collectors_.empty()) collectors_.front()->notify_one();
}

void SharedConnection::give(Handed& handed) {
  for (auto& [handler, reply] : handed) handler(*this, reply.get());
  handed.clear();
}

ServerError SharedConnection::failure() const {
  return ServerError(connection_.server(), failure_reason_, failure_timed_out_);
}

}  // namespace distlock::detail::redis
