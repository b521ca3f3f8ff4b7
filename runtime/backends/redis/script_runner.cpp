#include "backends/redis/script_runner.h"

#include <charconv>
#include <iterator>

#include "backends/redis/server_error.h"
#include "redis_scripts_text.h"

namespace distlock::detail::redis {
namespace {

struct ScriptText {
  std::string_view name;
  std::string_view body;
};

constexpr std::array<ScriptText, 3> kScripts = {{
    {"acquire", redis_scripts::k_acquire},
    {"release", redis_scripts::k_release},
    {"renew", redis_scripts::k_renew},
}};

const ScriptText& text_of(Script script) { return kScripts[static_cast<std::size_t>(script)]; }

bool is_noscript(const redisReply& reply) {
  return is_error(reply) && reply_text(reply).starts_with("NOSCRIPT");
}

// Queues "<verb> <script> <numkeys> <keys...> <args...>".
void append_call(Connection& connection, std::string_view verb, std::string_view script,
                 const ScriptCall& call) {
  char count[20];
  const auto count_end = std::to_chars(std::begin(count), std::end(count), call.keys.size()).ptr;
  const std::string_view head[] = {verb, script, std::string_view(count, count_end - count)};
  connection.append({head, call.keys, call.args});
}

}  // namespace

ScriptRunner::ScriptRunner(Connection& connection) {
  for (std::size_t i = 0; i < kScripts.size(); ++i) {
    const std::string_view command[] = {"SCRIPT", "LOAD", kScripts[i].body};
    const Reply reply = connection.command(command);
    if (reply->type != REDIS_REPLY_STRING)
      throw ServerError(connection.server(), "cannot load the " + std::string(kScripts[i].name) +
                                                 " script: " + describe_reply(*reply));
    digests_[i] = reply_text(*reply);
  }
}

Reply ScriptRunner::run(Connection& connection, Script script, const ScriptCall& call) const {
  return std::move(run_all(connection, script, std::span(&call, 1)).front());
}

std::vector<Reply> ScriptRunner::run_all(Connection& connection, Script script,
                                         std::span<const ScriptCall> calls) const {
  const std::string& digest = digests_[static_cast<std::size_t>(script)];
  for (const auto& call : calls) append_call(connection, "EVALSHA", digest, call);
  std::vector<Reply> replies;
  replies.reserve(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) replies.push_back(connection.read_reply());

  std::vector<std::size_t> missed;
  for (std::size_t i = 0; i < replies.size(); ++i)
    if (is_noscript(*replies[i])) missed.push_back(i);
  // EVAL also puts the script back into the server's cache, so EVALSHA works again next time.
  for (const auto i : missed) append_call(connection, "EVAL", text_of(script).body, calls[i]);
  for (const auto i : missed) replies[i] = connection.read_reply();
  return replies;
}

}  // namespace distlock::detail::redis
