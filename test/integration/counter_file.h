// SPDX-License-Identifier: Apache-2.0
// The shared resource of the mutual-exclusion tests: a file holding "<count> <fence>".
// Each increment reads it, pauses a little (so that an unprotected writer would lose
// updates), and writes it back. The fence written with the count lets every holder check
// that its fencing token is larger than the one of the holder before it.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

namespace distlock::testing {

struct CounterValue {
  std::uint64_t count = 0;
  std::uint64_t fence = 0;
};

inline CounterValue read_counter_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  char text[128] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  ::close(fd);
  if (n < 0) throw std::runtime_error("cannot read " + path);
  CounterValue value;
  unsigned long long count = 0;
  unsigned long long fence = 0;
  if (n > 0 && std::sscanf(text, "%llu %llu", &count, &fence) != 2) {
    throw std::runtime_error("malformed counter file " + path + ": \"" + text + "\"");
  }
  value.count = count;
  value.fence = fence;
  return value;
}

inline void write_counter_file(const std::string& path, CounterValue value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  const std::string text = std::to_string(value.count) + " " + std::to_string(value.fence) + "\n";
  // Same length or longer than before (the numbers only grow), so no stale tail remains;
  // truncate anyway.
  const bool ok = ::ftruncate(fd, 0) == 0 &&
                  ::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write " + path);
}

// One unprotected read-modify-write with a random pause of up to `max_pause` between the
// read and the write. Returns false if `fence` is not larger than the fence of the previous
// writer (the lock handed out tokens out of order, or two holders overlapped).
inline bool increment_counter_file(const std::string& path, std::uint64_t fence,
                                   std::chrono::microseconds max_pause) {
  thread_local std::mt19937 random{std::random_device{}()};
  const CounterValue before = read_counter_file(path);
  std::this_thread::sleep_for(std::chrono::microseconds(
      std::uniform_int_distribution<long>(0, static_cast<long>(max_pause.count()))(random)));
  write_counter_file(path, {before.count + 1, fence > before.fence ? fence : before.fence});
  return fence > before.fence;
}

}  // namespace distlock::testing
