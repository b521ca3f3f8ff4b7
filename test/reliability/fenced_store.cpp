// SPDX-License-Identifier: Apache-2.0
#include "fenced_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "events.h"

namespace distlock::reliability {

// The state file's layout. Outside the anonymous namespace: FencedStore::State, a member of a
// class the checker's other files see, holds one.
struct StateRecord {
  char magic[8];
  std::uint64_t value;
  std::uint64_t highest_fence;
  std::uint64_t sequence;  // journal records written so far
  std::uint64_t fencing;   // 1: refuse lower fences; 0: accept everything (--break fencing)
};

namespace {

constexpr char kMagic[8] = {'d', 'l', 'f', 's', 't', 'o', 'r', '1'};

struct JournalRecord {
  std::uint64_t sequence;
  std::int64_t time_ns;
  std::uint64_t fence;
  std::uint64_t before;    // stored value when the operation arrived
  std::uint64_t expected;  // what the writer had read (writes)
  std::uint64_t after;     // stored value when it left
  std::uint64_t highest;   // highest fence seen before the operation
  std::int32_t worker;
  std::uint8_t op;
  std::uint8_t accepted;
  std::uint8_t padding[2];
};

[[noreturn]] void fail(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

std::filesystem::path journal_path(const std::filesystem::path& path) {
  return std::filesystem::path(path.string() + ".journal");
}

void write_all(int fd, const void* data, std::size_t size, off_t offset, const char* what) {
  const auto* bytes = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n =
        offset < 0 ? ::write(fd, bytes + done, size - done)
                   : ::pwrite(fd, bytes + done, size - done, offset + static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(what);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

struct FencedStore::State {
  StateRecord record;
};

void FencedStore::create(const std::filesystem::path& path, bool fencing) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create " + path.string());
  StateRecord record{};
  std::memcpy(record.magic, kMagic, sizeof kMagic);
  record.fencing = fencing ? 1 : 0;
  write_all(fd, &record, sizeof record, 0, "write store");
  ::close(fd);
  const int journal =
      ::open(journal_path(path).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (journal < 0) fail("create " + journal_path(path).string());
  ::close(journal);
}

FencedStore::FencedStore(const std::filesystem::path& path) : path_(path) {
  state_fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (state_fd_ < 0) fail("open " + path.string());
  journal_fd_ = ::open(journal_path(path).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (journal_fd_ < 0) {
    ::close(state_fd_);
    fail("open " + journal_path(path).string());
  }
}

FencedStore::~FencedStore() {
  ::close(state_fd_);
  ::close(journal_fd_);
}

FencedStore::State FencedStore::lock_and_load() {
  while (::flock(state_fd_, LOCK_EX) != 0) {
    if (errno != EINTR) fail("flock " + path_.string());
  }
  State state{};
  const ssize_t n = ::pread(state_fd_, &state.record, sizeof state.record, 0);
  if (n != static_cast<ssize_t>(sizeof state.record) ||
      std::memcmp(state.record.magic, kMagic, sizeof kMagic) != 0) {
    unlock();
    throw std::runtime_error("fenced store " + path_.string() + " is damaged");
  }
  return state;
}

void FencedStore::store_and_unlock(const State& state) {
  write_all(state_fd_, &state.record, sizeof state.record, 0, "write store");
  unlock();
}

void FencedStore::unlock() { ::flock(state_fd_, LOCK_UN); }

void FencedStore::journal(const State& state, int worker, StoreOp op, std::uint64_t fence,
                          std::uint64_t before, std::uint64_t expected, std::uint64_t after,
                          bool accepted) {
  JournalRecord record{};
  record.sequence = state.record.sequence;
  record.time_ns = mono_ns();
  record.fence = fence;
  record.before = before;
  record.expected = expected;
  record.after = after;
  record.highest = state.record.highest_fence;
  record.worker = worker;
  record.op = static_cast<std::uint8_t>(op);
  record.accepted = accepted ? 1 : 0;
  // Appended under the flock: the journal's order is the order the store saw.
  write_all(journal_fd_, &record, sizeof record, -1, "write journal");
}

StoreRead FencedStore::read(int worker, std::uint64_t fence) {
  State state = lock_and_load();
  StoreRead result;
  const std::uint64_t highest = state.record.highest_fence;
  result.accepted = fence >= highest || state.record.fencing == 0;
  result.value = state.record.value;
  try {
    journal(state, worker, StoreOp::read, fence, state.record.value, 0, state.record.value,
            result.accepted);
  } catch (...) {
    unlock();
    throw;
  }
  ++state.record.sequence;
  if (result.accepted) state.record.highest_fence = std::max(highest, fence);
  store_and_unlock(state);
  return result;
}

StoreWrite FencedStore::write(int worker, std::uint64_t fence, std::uint64_t expected,
                              std::uint64_t value, StoreOp op) {
  State state = lock_and_load();
  StoreWrite result;
  const std::uint64_t before = state.record.value;
  result.accepted = fence >= state.record.highest_fence || state.record.fencing == 0;
  result.lost_update = result.accepted && before != expected;
  try {
    journal(state, worker, op, fence, before, expected, result.accepted ? value : before,
            result.accepted);
  } catch (...) {
    unlock();
    throw;
  }
  ++state.record.sequence;
  if (result.accepted) {
    state.record.value = value;
    state.record.highest_fence = std::max(state.record.highest_fence, fence);
  }
  store_and_unlock(state);
  return result;
}

bool FencedStore::undo(int worker, std::uint64_t fence, std::uint64_t written,
                       std::uint64_t previous) {
  State state = lock_and_load();
  const std::uint64_t before = state.record.value;
  const bool accepted =
      (fence >= state.record.highest_fence || state.record.fencing == 0) && before == written;
  try {
    journal(state, worker, StoreOp::undo, fence, before, written, accepted ? previous : before,
            accepted);
  } catch (...) {
    unlock();
    throw;
  }
  ++state.record.sequence;
  if (accepted) state.record.value = previous;
  store_and_unlock(state);
  return accepted;
}

StoreAudit audit_store(const std::filesystem::path& path) {
  StoreAudit audit;
  std::vector<JournalRecord> records;
  {
    const int fd = ::open(journal_path(path).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("open " + journal_path(path).string());
    JournalRecord record{};
    for (;;) {
      const ssize_t n = ::read(fd, &record, sizeof record);
      if (n == 0) break;
      if (n != static_cast<ssize_t>(sizeof record)) {
        ::close(fd);
        audit.inconsistency = "the journal ends in a partial record";
        return audit;
      }
      records.push_back(record);
    }
    ::close(fd);
  }
  StateRecord state{};
  {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("open " + path.string());
    const ssize_t n = ::pread(fd, &state, sizeof state, 0);
    ::close(fd);
    if (n != static_cast<ssize_t>(sizeof state)) {
      audit.inconsistency = "the store file is short";
      return audit;
    }
  }

  const bool fencing = state.fencing != 0;
  std::uint64_t value = 0;
  std::uint64_t highest_read = 0;
  std::uint64_t highest = 0;
  // Per (worker, fence): the journal index of its last accepted read.
  std::map<std::pair<std::int32_t, std::uint64_t>, std::size_t> open_reads;
  std::string problem;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const JournalRecord& r = records[i];
    ++audit.operations;
    if (r.sequence != i && problem.empty())
      problem =
          "journal record " + std::to_string(i) + " has sequence " + std::to_string(r.sequence);
    // The replay decides acceptance itself; the store's verdict must agree.
    const bool should_accept = r.fence >= highest || !fencing;
    const auto op = static_cast<StoreOp>(r.op);
    if (op == StoreOp::undo) {
      const bool ok = should_accept && value == r.expected;
      if (ok != (r.accepted != 0) && problem.empty())
        problem = "the store's verdict on undo " + std::to_string(i) + " differs from the replay";
      if (ok) {
        if (r.fence < highest_read) ++audit.stale_accepted;
        value = r.after;
        ++audit.undos_accepted;
      }
      continue;
    }
    if ((r.accepted != 0) != should_accept && problem.empty())
      problem =
          "the store's verdict on operation " + std::to_string(i) + " differs from the replay";
    if (op == StoreOp::read) {
      ++audit.reads;
      if (!should_accept) {
        ++audit.reads_rejected;
        continue;
      }
      highest = std::max(highest, r.fence);
      highest_read = std::max(highest_read, r.fence);
      open_reads[{r.worker, r.fence}] = i;
      continue;
    }
    // A write or probe.
    if (op == StoreOp::probe) ++audit.probes;
    const auto opened = open_reads.find({r.worker, r.fence});
    if (opened != open_reads.end()) {
      for (std::size_t j = opened->second + 1; j < i; ++j) {
        if (records[j].fence != r.fence) {
          ++audit.interleaved;
          break;
        }
      }
      open_reads.erase(opened);
    }
    if (!should_accept) {
      ++audit.writes_rejected;
      continue;
    }
    if (r.fence < highest_read) ++audit.stale_accepted;
    if (value != r.expected) ++audit.lost_updates;
    value = r.after;
    highest = std::max(highest, r.fence);
    ++audit.writes_accepted;
    if (op == StoreOp::probe) ++audit.probes_accepted;
  }
  audit.final_value = value;
  if (problem.empty() && state.value != value)
    problem = "the store holds " + std::to_string(state.value) + " but the journal replays to " +
              std::to_string(value);
  if (problem.empty() && state.sequence != records.size())
    problem = "the store counted " + std::to_string(state.sequence) +
              " operations, the journal has " + std::to_string(records.size());
  if (problem.empty() && value != audit.writes_accepted - audit.undos_accepted)
    problem = "the counter is " + std::to_string(value) + " after " +
              std::to_string(audit.writes_accepted) + " accepted increments and " +
              std::to_string(audit.undos_accepted) + " undos";
  audit.consistent = problem.empty();
  audit.inconsistency = problem;
  return audit;
}

}  // namespace distlock::reliability
