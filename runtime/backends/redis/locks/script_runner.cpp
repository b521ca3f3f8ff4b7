// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/locks/script_runner.h"

#include <array>
#include <charconv>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include "backends/redis/transport/server_error.h"
#include "redis_scripts_text.h"

namespace distlock::detail::redis {
namespace {

struct ScriptText {
  std::string_view name;
  // The functions it calls (scripts/lib), then its own text.
  std::array<std::string_view, 5> libraries;
  std::string_view body;
};

using redis_scripts::k_exclusive_hold;
using redis_scripts::k_fair_queue;
using redis_scripts::k_fence;
using redis_scripts::k_release_hold;
using redis_scripts::k_shared_holds;

const std::array<ScriptText, kScriptCount> kScripts = {{
    {"acquire", {k_fence, k_exclusive_hold}, redis_scripts::k_acquire},
    {"release", {k_release_hold}, redis_scripts::k_release},
    {"renew", {}, redis_scripts::k_renew},
    {"acquire_write", {k_fence, k_exclusive_hold, k_shared_holds}, redis_scripts::k_acquire_write},
    {"acquire_read", {k_fence, k_shared_holds}, redis_scripts::k_acquire_read},
    {"withdraw_writer", {}, redis_scripts::k_withdraw_writer},
    {"acquire_permit", {k_fence, k_shared_holds}, redis_scripts::k_acquire_permit},
    {"renew_shared", {k_shared_holds}, redis_scripts::k_renew_shared},
    {"release_shared", {k_shared_holds}, redis_scripts::k_release_shared},
    {"acquire_fair",
     {k_fence, k_exclusive_hold, k_shared_holds, k_fair_queue},
     redis_scripts::k_acquire_fair},
    {"release_fair",
     {k_fence, k_exclusive_hold, k_shared_holds, k_fair_queue, k_release_hold},
     redis_scripts::k_release_fair},
    {"withdraw_fair",
     {k_fence, k_exclusive_hold, k_shared_holds, k_fair_queue, k_release_hold},
     redis_scripts::k_withdraw_fair},
}};

std::string full_text(const ScriptText& script) {
  std::string text;
  for (const std::string_view library : script.libraries) text += library;
  text += script.body;
  return text;
}

// What EVAL sends when the server lost its cache: built once, on first need.
const std::string& body_of(Script script) {
  static const auto bodies = [] {
    std::array<std::string, kScriptCount> all;
    for (std::size_t i = 0; i < kScriptCount; ++i) all[i] = full_text(kScripts[i]);
    return all;
  }();
  return bodies[static_cast<std::size_t>(script)];
}

bool is_noscript(const redisReply& reply) {
  return is_error(reply) && reply_text(reply).starts_with("NOSCRIPT");
}

using CommandParts = std::initializer_list<std::span<const std::string_view>>;

// Hands "<verb> <script> <numkeys> <keys...> <args...>" to `send`.
template <class Send>
void with_command(std::string_view verb, std::string_view script, const ScriptCall& call,
                  Send&& send) {
  char count[20];
  const auto count_end = std::to_chars(std::begin(count), std::end(count), call.keys.size()).ptr;
  const std::string_view head[] = {verb, script, std::string_view(count, count_end - count)};
  send(CommandParts{head, call.keys, call.args});
}

void append_call(Connection& connection, std::string_view verb, std::string_view script,
                 const ScriptCall& call) {
  with_command(verb, script, call, [&](CommandParts parts) { connection.append(parts); });
}

void send_call_unawaited(Connection& connection, std::string_view verb, std::string_view script,
                         const ScriptCall& call, Connection::ReplyHandler handler) {
  with_command(verb, script, call,
               [&](CommandParts parts) { connection.send_unawaited(parts, std::move(handler)); });
}

// A call whose texts it keeps: for one sent again after its caller has returned.
class KeptCall {
 public:
  explicit KeptCall(const ScriptCall& call)
      : script_(call.script),
        texts_(call.keys.begin(), call.keys.end()),
        key_count_(call.keys.size()) {
    texts_.insert(texts_.end(), call.args.begin(), call.args.end());
    views_.assign(texts_.begin(), texts_.end());
  }
  KeptCall(const KeptCall&) = delete;
  KeptCall& operator=(const KeptCall&) = delete;

  ScriptCall call() const {
    const std::span<const std::string_view> all(views_);
    return {script_, all.first(key_count_), all.subspan(key_count_)};
  }

 private:
  Script script_;
  std::vector<std::string> texts_;
  std::vector<std::string_view> views_;
  std::size_t key_count_;
};

// On a pooled connection the caller that reads the NOSCRIPT is the one that sends after it: its
// handler sending the EVAL keeps the order of the commands.
void send_script_unawaited(Connection& connection, std::string_view digest, const ScriptCall& call,
                           std::function<void(const redisReply*)> on_reply) {
  auto kept = std::make_shared<const KeptCall>(call);
  send_call_unawaited(
      connection, "EVALSHA", digest, kept->call(),
      [kept, on_reply = std::move(on_reply)](Connection& again, const redisReply* reply) {
        if (reply == nullptr || !is_noscript(*reply)) {
          on_reply(reply);
          return;
        }
        try {
          // EVAL also puts the script back into the server's cache.
          send_call_unawaited(again, "EVAL", body_of(kept->call().script), kept->call(),
                              [on_reply](Connection&, const redisReply* last) { on_reply(last); });
        } catch (const ServerError&) {
          on_reply(nullptr);
        }
      });
}

}  // namespace

ScriptRunner::ScriptRunner(Connection& connection) {
  for (std::size_t i = 0; i < kScripts.size(); ++i) {
    const std::string_view command[] = {"SCRIPT", "LOAD", body_of(static_cast<Script>(i))};
    const Reply reply = connection.command(command);
    if (reply->type != REDIS_REPLY_STRING)
      throw ServerError(connection.server(), "cannot load the " + std::string(kScripts[i].name) +
                                                 " script: " + describe_reply(*reply));
    digests_[i] = reply_text(*reply);
  }
}

Reply ScriptRunner::run(Connection& connection, const ScriptCall& call) const {
  return std::move(run_all(connection, std::span(&call, 1)).front());
}

void ScriptRunner::send_unawaited(Connection& connection, const ScriptCall& call,
                                  std::function<void(const redisReply*)> on_reply) const {
  send_script_unawaited(connection, digests_[static_cast<std::size_t>(call.script)], call,
                        std::move(on_reply));
}

void ScriptRunner::send_unawaited(SharedConnection& connection, const ScriptCall& call,
                                  std::function<void(const redisReply*)> on_reply) const {
  // The reader sends the EVAL (which also puts the script back into the server's cache) before
  // it hands out the replies after the NOSCRIPT: the same thread's next command, sent after
  // this one but maybe answered in the same read, goes out after the EVAL too.
  auto by_text = [kept = std::make_shared<const KeptCall>(call)](const redisReply& reply) {
    std::optional<SharedConnection::Encoded> eval;
    if (is_noscript(reply))
      with_command("EVAL", body_of(kept->call().script), kept->call(),
                   [&](CommandParts parts) { eval = SharedConnection::encode(parts); });
    return eval;
  };
  with_command("EVALSHA", digests_[static_cast<std::size_t>(call.script)], call,
               [&](CommandParts parts) {
                 connection.send_unawaited(
                     parts,
                     [on_reply = std::move(on_reply)](SharedConnection&, const redisReply* reply) {
                       on_reply(reply);
                     },
                     std::move(by_text));
               });
}

Reply ScriptRunner::run(SharedConnection& connection, const ScriptCall& call,
                        SteadyClock::time_point caller_deadline) const {
  Reply reply;
  with_command("EVALSHA", digests_[static_cast<std::size_t>(call.script)], call,
               [&](CommandParts parts) { reply = connection.command(parts, caller_deadline); });
  if (!is_noscript(*reply)) return reply;
  // EVAL also puts the script back into the server's cache, so EVALSHA works again next time.
  with_command("EVAL", body_of(call.script), call,
               [&](CommandParts parts) { reply = connection.command(parts, caller_deadline); });
  return reply;
}

std::vector<Reply> ScriptRunner::run_all(Connection& connection,
                                         std::span<const ScriptCall> calls) const {
  for (const auto& call : calls)
    append_call(connection, "EVALSHA", digests_[static_cast<std::size_t>(call.script)], call);
  std::vector<Reply> replies;
  replies.reserve(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) replies.push_back(connection.read_reply());

  std::vector<std::size_t> missed;
  for (std::size_t i = 0; i < replies.size(); ++i)
    if (is_noscript(*replies[i])) missed.push_back(i);
  // EVAL also puts the script back into the server's cache, so EVALSHA works again next time.
  for (const auto i : missed) append_call(connection, "EVAL", body_of(calls[i].script), calls[i]);
  for (const auto i : missed) replies[i] = connection.read_reply();
  return replies;
}

}  // namespace distlock::detail::redis
