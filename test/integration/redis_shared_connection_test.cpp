// SPDX-License-Identifier: Apache-2.0
// The connection the Redis lock commands share
// (runtime/backends/redis/transport/shared_connection.h), against a real redis-server: every caller
// gets its own reply however many send at once, replies read for others reach them in order, a
// caller that runs a handler hands the reading on first, and a server that stops answering or goes
// away fails every caller still waiting, by name, and never hangs one. read_owed() reads what is
// owed and no more, taking its turn with the other callers.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/shared_connection.h"
#include "redis_server.h"

namespace distlock::detail::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisServer;

ConnectionSettings settings_for(const RedisServer& server, Millis command_timeout = Millis(5000)) {
  ConnectionSettings settings;
  settings.server = server.url();
  settings.address = Address{"127.0.0.1", server.port(), {}};
  settings.connect_timeout = Millis(5000);
  settings.command_timeout = command_timeout;
  return settings;
}

Reply command(SharedConnection& connection, std::initializer_list<std::string_view> args) {
  const std::span<const std::string_view> all(args.begin(), args.size());
  return connection.command({all});
}

std::string text_of(const Reply& reply) { return std::string(reply_text(*reply)); }

// Whether the thread `tid` of this process is asleep (state S in /proc).
bool asleep(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto end_of_name = line.rfind(')');
  return end_of_name != std::string::npos && line.size() > end_of_name + 2 &&
         line[end_of_name + 2] == 'S';
}

TEST(RedisSharedConnection, ManyThreadsEachGetTheirOwnReplies) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server);
  SharedConnection connection(settings, settings.address, 0);
  constexpr int kThreads = 8;
  constexpr int kCommands = 300;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommands; ++i) {
        const std::string mine = std::to_string(t) + "-" + std::to_string(i);
        if (text_of(command(connection, {"ECHO", mine})) != mine) ++mismatches[t];
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  EXPECT_FALSE(connection.broken());
}

// Replies to commands nobody waits for go to their handlers, in the order the commands went
// out, once a later caller reads them; the caller's own reply comes after them.
TEST(RedisSharedConnection, UnawaitedRepliesReachTheirHandlersInOrder) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server);
  SharedConnection connection(settings, settings.address, 0);
  std::vector<long long> counted;
  const std::string_view incr[] = {"INCR", "counter"};
  for (int i = 0; i < 3; ++i)
    connection.send_unawaited({incr}, [&](SharedConnection&, const redisReply* reply) {
      ASSERT_NE(reply, nullptr);
      counted.push_back(reply->integer);
    });
  EXPECT_EQ(text_of(command(connection, {"GET", "counter"})), "3");
  EXPECT_EQ(counted, (std::vector<long long>{1, 2, 3}));
}

// The caller that reads a reply nobody waits for runs its handler (a scope exit's report, which
// reaches the user's callbacks), and hands the reading on first: a handler that waits for
// another caller's reply gets it, where it would otherwise wait for itself. Both callers are
// waiting when that reply is read (the server is stopped until then); which of them reads it
// is up to the scheduler, so the handler waits for the other one.
TEST(RedisSharedConnection, AReaderHandsTheReadingOnBeforeItRunsAHandler) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server);
  SharedConnection connection(settings, settings.address, 0);
  EXPECT_EQ(text_of(command(connection, {"PING"})), "PONG");

  std::mutex mutex;
  std::condition_variable changed;
  std::array<std::thread::id, 2> callers;
  std::array<bool, 2> answered{false, false};
  int handlers_run = 0;
  bool other_answered_meanwhile = false;

  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  const std::string_view ping[] = {"PING"};
  connection.send_unawaited({ping}, [&](SharedConnection&, const redisReply* reply) {
    EXPECT_NE(reply, nullptr);
    std::unique_lock lock(mutex);
    ++handlers_run;
    const std::size_t other = callers[0] == std::this_thread::get_id() ? 1 : 0;
    lock.unlock();
    // Both lists at once: the server answers the two BLPOPs, in order.
    server.cli({"RPUSH", "list-0", "first"});
    server.cli({"RPUSH", "list-1", "second"});
    lock.lock();
    other_answered_meanwhile = changed.wait_for(lock, 10s, [&] { return answered[other]; });
  });
  std::array<std::string, 2> replies;
  std::array<std::atomic<pid_t>, 2> tids{};
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 2; ++i)
    threads.emplace_back([&, i] {
      {
        std::lock_guard lock(mutex);
        callers[i] = std::this_thread::get_id();
      }
      tids[i] = static_cast<pid_t>(::syscall(SYS_gettid));
      const std::string list = "list-" + std::to_string(i);
      const Reply reply = command(connection, {"BLPOP", list, "0"});
      std::lock_guard lock(mutex);
      replies[i] = reply->type == REDIS_REPLY_ARRAY && reply->elements == 2
                       ? std::string(reply_text(*reply->element[1]))
                       : describe_reply(*reply);
      answered[i] = true;
      changed.notify_all();
    });
  // Both callers wait for a reply (one reads, the other waits its turn) before any comes.
  const auto limit = std::chrono::steady_clock::now() + 10s;
  const auto both_asleep = [&] {
    return tids[0] != 0 && tids[1] != 0 && asleep(tids[0]) && asleep(tids[1]);
  };
  while (!both_asleep() && std::chrono::steady_clock::now() < limit) std::this_thread::yield();
  const bool waited = both_asleep();
  ASSERT_EQ(::kill(server.pid(), SIGCONT), 0);
  for (auto& thread : threads) thread.join();

  EXPECT_TRUE(waited) << "the callers did not both wait within 10 s";
  EXPECT_EQ(handlers_run, 1);
  EXPECT_TRUE(other_answered_meanwhile)
      << "the handler's thread kept the reading: the other caller's reply waited for it";
  EXPECT_EQ(replies[0], "first");
  EXPECT_EQ(replies[1], "second");
  EXPECT_FALSE(connection.broken());
}

// read_owed() reads the replies owed when it is called, each to its handler in order, and
// returns; with none owed it reads nothing (a read would wait out command_timeout and break the
// connection).
TEST(RedisSharedConnection, ReadOwedHandsOutWhatIsOwedAndReturns) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server);
  SharedConnection connection(settings, settings.address, 0);
  connection.read_owed();
  EXPECT_FALSE(connection.broken());
  std::vector<long long> counted;
  const std::string_view incr[] = {"INCR", "counter"};
  for (int i = 0; i < 3; ++i)
    connection.send_unawaited({incr}, [&](SharedConnection&, const redisReply* reply) {
      ASSERT_NE(reply, nullptr);
      counted.push_back(reply->integer);
    });
  EXPECT_TRUE(connection.owes_unawaited());
  connection.read_owed();
  EXPECT_EQ(counted, (std::vector<long long>{1, 2, 3}));
  EXPECT_FALSE(connection.owes_unawaited());
  EXPECT_FALSE(connection.broken());
}

// A read_owed() caller takes turns with the callers of command(): while one reads, it waits, and
// once that one has its reply, the reading passes to it for the replies owed after.
TEST(RedisSharedConnection, ReadOwedTakesItsTurnAfterAWaitingCaller) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server);
  SharedConnection connection(settings, settings.address, 0);
  std::atomic<pid_t> reader_tid{0};
  std::string popped;
  std::thread reader([&] {
    reader_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    const Reply reply = command(connection, {"BLPOP", "list", "0"});
    popped = reply->type == REDIS_REPLY_ARRAY && reply->elements == 2
                 ? std::string(reply_text(*reply->element[1]))
                 : describe_reply(*reply);
  });
  const auto limit = std::chrono::steady_clock::now() + 10s;
  while ((reader_tid == 0 || !asleep(reader_tid)) && std::chrono::steady_clock::now() < limit)
    std::this_thread::yield();
  std::vector<long long> counted;
  const std::string_view incr[] = {"INCR", "counter"};
  connection.send_unawaited({incr}, [&](SharedConnection&, const redisReply* reply) {
    ASSERT_NE(reply, nullptr);
    counted.push_back(reply->integer);
  });
  std::atomic<pid_t> collector_tid{0};
  std::thread collector([&] {
    collector_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    connection.read_owed();
  });
  while ((collector_tid == 0 || !asleep(collector_tid)) && std::chrono::steady_clock::now() < limit)
    std::this_thread::yield();
  // The server answers the INCR only after the BLPOP, which this push answers.
  server.cli({"RPUSH", "list", "pushed"});
  reader.join();
  collector.join();
  EXPECT_EQ(popped, "pushed");
  EXPECT_EQ(counted, (std::vector<long long>{1}));
  EXPECT_FALSE(connection.broken());
}

// A server that stops answering: every caller waiting gives up at command_timeout with the
// server's name and the command, the handlers of unawaited commands hear that no reply will
// come, and the connection is not used again.
TEST(RedisSharedConnection, SilenceFailsEveryCallerAtTheTimeout) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server, Millis(300));
  SharedConnection connection(settings, settings.address, 0);
  EXPECT_EQ(text_of(command(connection, {"PING"})), "PONG");

  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  std::atomic<int> lost_replies{0};
  const std::string_view ping[] = {"PING"};
  connection.send_unawaited({ping}, [&](SharedConnection&, const redisReply* reply) {
    if (reply == nullptr) ++lost_replies;
  });
  constexpr int kThreads = 4;
  std::vector<std::string> failures(kThreads);
  std::vector<int> timed_out(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        command(connection, {"ECHO", "silence"});
      } catch (const ServerError& error) {
        failures[t] = error.what();
        timed_out[t] = error.timed_out();
      }
    });
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(::kill(server.pid(), SIGCONT), 0);

  EXPECT_EQ(lost_replies.load(), 1);
  EXPECT_TRUE(connection.broken());
  // The caller that was reading saw the timeout; the others learn of it from it.
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_NE(failures[t].find(std::to_string(server.port())), std::string::npos) << failures[t];
    EXPECT_NE(failures[t].find("within 300 ms (command_timeout)"), std::string::npos)
        << failures[t];
    EXPECT_TRUE(timed_out[t]) << failures[t];
  }
  EXPECT_THROW(command(connection, {"PING"}), ServerError);
}

// A send that fails breaks the connection and tells the handlers of the unawaited commands
// that no reply will come; a handler runs the user's log and event callbacks (a scope exit's
// report), so it runs once the sender has let go of the connection's locks: another caller that
// comes meanwhile learns of the failure at once instead of waiting for the handler. The send
// fails for want of room: the server is stopped, and the command is larger than what the
// sockets' buffers take in, so it cannot go out within command_timeout.
TEST(RedisSharedConnection, AHandlerThatAFailedSendTellsHoldsUpNoOtherCaller) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server, Millis(300));
  SharedConnection connection(settings, settings.address, 0);
  EXPECT_EQ(text_of(command(connection, {"PING"})), "PONG");

  std::mutex mutex;
  std::condition_variable changed;
  bool other_returned = false;
  bool other_returned_meanwhile = false;
  std::string other_failure;
  std::thread other;
  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  const std::string_view ping[] = {"PING"};
  connection.send_unawaited({ping}, [&](SharedConnection&, const redisReply* reply) {
    EXPECT_EQ(reply, nullptr);
    other = std::thread([&] {
      std::string failure;
      try {
        command(connection, {"PING"});
      } catch (const ServerError& error) {
        failure = error.what();
      }
      std::lock_guard lock(mutex);
      other_failure = std::move(failure);
      other_returned = true;
      changed.notify_all();
    });
    std::unique_lock lock(mutex);
    other_returned_meanwhile = changed.wait_for(lock, 10s, [&] { return other_returned; });
  });
  const std::string larger_than_the_buffers(std::size_t{64} << 20, 'x');
  EXPECT_THROW(command(connection, {"ECHO", larger_than_the_buffers}), ServerError);
  ASSERT_EQ(::kill(server.pid(), SIGCONT), 0);
  ASSERT_TRUE(other.joinable()) << "the failed send did not tell the unawaited command's handler";
  other.join();

  EXPECT_TRUE(other_returned_meanwhile)
      << "the handler ran while the sender still held the connection: the other caller waited "
         "for it";
  EXPECT_NE(other_failure.find("within 300 ms (command_timeout)"), std::string::npos)
      << other_failure;
  EXPECT_TRUE(connection.broken());
}

TEST(RedisSharedConnection, AServerThatGoesAwayFailsTheCallersWaiting) {
  RedisServer server;
  const ConnectionSettings settings = settings_for(server);
  SharedConnection connection(settings, settings.address, 0);
  EXPECT_EQ(text_of(command(connection, {"PING"})), "PONG");

  // Stopped first, so that the callers are surely waiting when it goes.
  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  constexpr int kThreads = 4;
  std::atomic<int> failed{0};
  std::atomic<int> sent{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      try {
        ++sent;
        command(connection, {"ECHO", "gone"});
      } catch (const ServerError& error) {
        if (std::string(error.what()).find(settings.server) != std::string::npos) ++failed;
      }
    });
  while (sent.load() < kThreads) std::this_thread::yield();
  ASSERT_EQ(::kill(server.pid(), SIGKILL), 0);
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), kThreads);
  EXPECT_TRUE(connection.broken());
}

}  // namespace
}  // namespace distlock::detail::redis
