// SPDX-License-Identifier: Apache-2.0
// Running the distlock command (cli/) as a child process, as an operator would: its exit code,
// its stdout and its stderr apart, and --json output parsed with nlohmann-json.
#pragma once

#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "subprocess.h"

namespace distlock::testing {

struct CommandResult {
  ExitStatus status;
  std::string out;
  std::string err;

  int code() const { return status.exited ? status.code : -1; }
  nlohmann::json json() const { return nlohmann::json::parse(out); }
  // For failure messages.
  std::string describe() const {
    return status.describe() + "\nstdout:\n" + out + "\nstderr:\n" + err;
  }
};

// Runs `distlock <args...>` with `url` (if any) in DISTLOCK_URL, and waits for it to end.
inline CommandResult run_distlock(const std::vector<std::string>& args,
                                  const std::string& environment_url = {}) {
  const TempDirectory directory;
  const std::string err_path = (directory.path() / "stderr").string();
  // The shell only sends stderr to a file and sets the environment; $0 is the command.
  std::string script = "exec \"$0\" \"$@\" 2>'" + err_path + "'";
  if (!environment_url.empty()) script = "DISTLOCK_URL='" + environment_url + "' " + script;
  std::vector<std::string> shell_args = {"-c", script, DISTLOCK_COMMAND};
  shell_args.insert(shell_args.end(), args.begin(), args.end());
  Subprocess process("/bin/sh", shell_args);
  CommandResult result;
  result.out = process.read_all(std::chrono::seconds(60));
  result.status = process.wait(std::chrono::seconds(60));
  std::ifstream err(err_path);
  std::ostringstream text;
  text << err.rdbuf();
  result.err = text.str();
  return result;
}

// The lock of this name in a `list --json` output; null when it is not listed.
inline nlohmann::json listed_lock(const nlohmann::json& listing, const std::string& name) {
  for (const auto& lock : listing.at("locks"))
    if (lock.at("name") == name) return lock;
  return nullptr;
}

// Whether the server records when a hold was acquired (etcd keeps no time for a key).
enum class AcquiredAt { recorded, unknown };

// The hold of `lease` in a listed lock, checked against what the lease knows (kind, fence,
// this process as its holder, acquired in the last minute or not known); null (and a failure)
// if missing.
inline nlohmann::json expect_holder(const nlohmann::json& lock, const Lease& lease,
                                    const std::string& kind,
                                    AcquiredAt acquired_at = AcquiredAt::recorded) {
  if (lock.is_null()) {
    ADD_FAILURE() << lease.name() << " is not listed";
    return nullptr;
  }
  for (const auto& hold : lock.at("holds")) {
    if (hold.at("acquisition_id") != lease.id()) continue;
    EXPECT_EQ(hold.at("kind"), kind) << hold;
    EXPECT_EQ(hold.at("fence").get<std::uint64_t>(), lease.fence()) << hold;
    EXPECT_EQ(hold.at("pid").get<long long>(), ::getpid()) << hold;
    EXPECT_FALSE(hold.at("host").get<std::string>().empty()) << hold;
    if (acquired_at == AcquiredAt::unknown) {
      EXPECT_TRUE(hold.at("acquired_at_ms").is_null()) << hold;
      return hold;
    }
    const auto acquired_ms = hold.at("acquired_at_ms").get<long long>();
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    EXPECT_LE(acquired_ms, now_ms + 1000) << hold;
    EXPECT_GT(acquired_ms, now_ms - 60'000) << hold;
    return hold;
  }
  ADD_FAILURE() << "no hold of " << lease.id() << " in " << lock;
  return nullptr;
}

// `distlock [--url URL] <args...>` against the server a test runs.
using DistlockRun = std::function<CommandResult(std::vector<std::string>)>;

// Force-releases a live holder's lock by its acquisition id, as an operator would: the command
// names what it removed on stderr, the holder's on_lost runs at its next renewal, and the fence
// counter is left alone (the next holder's fence is above the broken one's).
inline void expect_force_release_ends_a_live_lease(Client& holder, Client& next_holder,
                                                   const LockSpec& lock_spec,
                                                   const DistlockRun& distlock) {
  Lease lease = holder.acquire(lock_spec, "stuck");
  std::promise<void> lost;
  lease.on_lost([&](const LockLost&) { lost.set_value(); });

  const auto result = distlock({"release", lease.name(), "--force", "--id", lease.id()});
  ASSERT_EQ(result.code(), 0) << result.describe();
  EXPECT_NE(result.err.find("force-released"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(lease.id()), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(lease.name()), std::string::npos) << result.err;

  auto lost_future = lost.get_future();
  ASSERT_EQ(lost_future.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "on_lost never ran";
  EXPECT_FALSE(lease.valid());

  const Lease next = next_holder.acquire(lock_spec, "stuck");
  EXPECT_GT(next.fence(), lease.fence());
}

// `release --force --id` with an id that does not hold the lock: exit 1, "nothing released",
// and the lease still valid.
inline void expect_release_of_another_id_keeps(const Lease& lease, const DistlockRun& distlock) {
  const auto mismatch = distlock({"release", lease.name(), "--force", "--id", "not-" + lease.id()});
  EXPECT_EQ(mismatch.code(), 1) << mismatch.describe();
  EXPECT_NE(mismatch.err.find("nothing released"), std::string::npos) << mismatch.err;
  EXPECT_TRUE(lease.valid());
}

}  // namespace distlock::testing
