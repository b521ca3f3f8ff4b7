// SPDX-License-Identifier: Apache-2.0
#include "redis_reference.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <thread>

#include "loopback_socket.h"
#include "subprocess.h"

using namespace std::chrono_literals;

namespace distlock::bench {
namespace {

// A connection to a loopback port (connect_loopback), closed with the object.
class LoopbackSocket {
 public:
  explicit LoopbackSocket(std::uint16_t port) : fd_(testing::connect_loopback(port)) {
    if (fd_ < 0)
      throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + ": " +
                               std::strerror(errno));
  }
  ~LoopbackSocket() { ::close(fd_); }
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;

  int fd() const { return fd_; }

 private:
  int fd_;
};

void send_all(int fd, const std::string& request) {
  if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
    throw std::runtime_error("write: " + std::string(std::strerror(errno)));
}

// One read of a short reply (a PUBLISH's count, a pub/sub message): what arrived, or throws.
std::string read_reply(int fd) {
  char reply[256];
  const ssize_t got = ::read(fd, reply, sizeof reply);
  if (got <= 0) throw std::runtime_error("the reference server closed the connection");
  return std::string(reply, static_cast<std::size_t>(got));
}

}  // namespace

NotificationLatency idle_notification_us(const testing::RedisServer& server,
                                         std::chrono::microseconds idle, int samples) {
  using Clock = std::chrono::steady_clock;
  const LoopbackSocket subscriber(server.port());
  const LoopbackSocket publisher(server.port());
  send_all(subscriber.fd(), "SUBSCRIBE bench:notification\r\n");
  if (read_reply(subscriber.fd()).find("subscribe") == std::string::npos)
    throw std::runtime_error("the reference server did not confirm SUBSCRIBE");

  std::vector<Clock::time_point> sent, read, woken;
  std::mutex mutex;
  std::condition_variable changed;
  std::exception_ptr error;
  const auto failed = [&](std::exception_ptr what) {
    std::lock_guard lock(mutex);
    if (!error) error = std::move(what);
    changed.notify_all();
  };
  // Hands each message to `waiting` as distlock's subscriber thread does: a notify under the
  // lock the waiter sleeps on.
  std::thread reader([&] {
    try {
      for (int i = 0; i < samples; ++i) {
        const std::string message = read_reply(subscriber.fd());
        const auto at = Clock::now();
        if (message.find("message") == std::string::npos)
          throw std::runtime_error("unexpected pub/sub reply: " + message);
        std::lock_guard lock(mutex);
        read.push_back(at);
        changed.notify_all();
      }
    } catch (...) {
      failed(std::current_exception());
    }
  });
  std::thread waiting([&] {
    std::unique_lock lock(mutex);
    for (int i = 0; i < samples; ++i) {
      changed.wait(lock, [&] { return error || read.size() > woken.size(); });
      if (error) return;
      woken.push_back(Clock::now());
      changed.notify_all();
    }
  });
  try {
    for (int i = 0; i < samples; ++i) {
      std::this_thread::sleep_for(idle);
      sent.push_back(Clock::now());
      send_all(publisher.fd(), "PUBLISH bench:notification released\r\n");
      if (read_reply(publisher.fd()) != ":1\r\n")
        throw std::runtime_error("PUBLISH reached no subscriber of the reference server");
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return error || woken.size() == sent.size(); });
      if (error) break;
    }
  } catch (...) {
    failed(std::current_exception());
    // The reader is blocked in read(): closing its socket's read side ends it.
    ::shutdown(subscriber.fd(), SHUT_RD);
  }
  reader.join();
  waiting.join();
  if (error) std::rethrow_exception(error);

  std::vector<double> to_subscriber, to_waiter;
  for (int i = 0; i < samples; ++i) {
    to_subscriber.push_back(std::chrono::duration<double, std::micro>(read[i] - sent[i]).count());
    to_waiter.push_back(std::chrono::duration<double, std::micro>(woken[i] - sent[i]).count());
  }
  return {median(std::move(to_subscriber)), median(std::move(to_waiter))};
}

std::string load_reference_script(const testing::RedisServer& server) {
  const std::string sha = server.cli({"SCRIPT", "LOAD", kReferenceScript});
  if (sha.size() != 40) throw std::runtime_error("SCRIPT LOAD returned '" + sha + "'");
  return sha;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

std::string listed_ratios(const std::vector<double>& ratios) {
  std::string text;
  for (const double ratio : ratios) {
    char formatted[16];
    std::snprintf(formatted, sizeof formatted, "%.2f", ratio);
    text += (text.empty() ? "" : ", ") + std::string(formatted);
  }
  return text;
}

double cycles_per_second(Client& client, int cycles, const std::string& key, Ending ending) {
  return cycles_per_second(client, cycles, key, distlock::spec("bench", 30s), ending);
}

double cycles_per_second(Client& client, int cycles, const std::string& key, const LockSpec& lock,
                         Ending ending) {
  std::uint64_t last_fence = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < cycles; ++i) {
    distlock::Lease lease = client.acquire(lock, key);
    if (lease.fence() <= last_fence) throw std::runtime_error("the fence did not increase");
    last_fence = lease.fence();
    if (ending == Ending::release_call) lease.release();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return cycles / seconds;
}

double idle_round_trip_us(const testing::RedisServer& server, const std::string& sha,
                          std::chrono::microseconds idle, int samples) {
  const LoopbackSocket socket(server.port());
  const int fd = socket.fd();
  // One inline command; its reply, ":0\r\n", arrives in one read.
  const std::string request = "EVALSHA " + sha + " 1 somekey\r\n";
  std::vector<double> micros;
  char reply[64];
  for (int i = 0; i < samples; ++i) {
    std::this_thread::sleep_for(idle);
    const auto sent = std::chrono::steady_clock::now();
    send_all(fd, request);
    const ssize_t got = ::read(fd, reply, sizeof reply);
    const auto answered = std::chrono::steady_clock::now();
    if (got <= 0 || reply[0] != ':')
      throw std::runtime_error("unexpected reply to EVALSHA from the reference server");
    micros.push_back(std::chrono::duration<double, std::micro>(answered - sent).count());
  }
  return median(std::move(micros));
}

double evalsha_per_second(const testing::RedisServer& server, const std::string& sha, int requests,
                          const std::string& key, int connections) {
  const auto program = distlock::testing::find_program("redis-benchmark");
  if (program.empty()) {
    throw std::runtime_error("redis-benchmark not found (Debian: apt-get install redis-tools)");
  }
  distlock::testing::Subprocess::Options options;
  options.merge_stderr = true;
  distlock::testing::Subprocess process(
      program,
      {"-h", "127.0.0.1", "-p", std::to_string(server.port()), "-c", std::to_string(connections),
       "-n", std::to_string(requests), "-q", "EVALSHA", sha, "1", key},
      options);
  const std::string output = process.read_all(300s);
  const auto status = process.wait(30s);
  if (!status.success()) {
    throw std::runtime_error("redis-benchmark failed (" + status.describe() + "): " + output);
  }
  // With -q it prints progress lines ending in '\r', then "EVALSHA ...: 41322.31 requests
  // per second, p50=0.023 msec": take the last figure.
  static const std::regex pattern(R"(([0-9]+(?:\.[0-9]+)?) requests per second)");
  double rate = 0;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    rate = std::stod((*it)[1].str());
  }
  if (rate <= 0) throw std::runtime_error("cannot read redis-benchmark's output: " + output);
  return rate;
}

}  // namespace distlock::bench
