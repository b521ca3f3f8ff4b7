// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/memory_backend.h"

#include <map>
#include <mutex>
#include <string>

#include <distlock/error.h>

#include "backends/memory/lock_table.h"

namespace distlock::detail::memory {
namespace {

std::shared_ptr<LockTable> table_named(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<LockTable>> tables;
  std::lock_guard lock(mutex);
  auto& table = tables[name];
  if (!table) table = std::make_shared<LockTable>();
  return table;
}

class MemoryBackend final : public Backend {
 public:
  MemoryBackend(std::string server, std::shared_ptr<LockTable> table, StatsCounters& stats)
      : server_(std::move(server)), table_(std::move(table)), stats_(stats) {}

  std::optional<Grant> acquire(const AcquireRequest& request) override {
    return table_->acquire(request, stats_);
  }
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor,
                                                    AcquireCompletion done) override {
    return table_->acquire_async(request, stats_, executor, std::move(done));
  }

  // In-process: the default release_unawaited(), made at once, waits for nobody.
  bool sends_releases_unawaited() const override { return true; }
  ReleaseOutcome release(const ReleaseRequest& request) override {
    return table_->release(request);
  }
  bool supports_read_write() const override { return true; }
  bool supports_permits() const override { return true; }
  bool supports_fair() const override { return true; }
  bool supports_keeping() const override { return true; }
  void renew(std::span<RenewItem> items, SteadyClock::time_point) override { table_->renew(items); }
  const std::string& server() const override { return server_; }

 private:
  const std::string server_;
  const std::shared_ptr<LockTable> table_;
  StatsCounters& stats_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const Url& url, const Options&, StatsCounters& stats) {
  if (url.user || url.password || url.endpoints.size() > 1 || !url.path.empty() ||
      (url.endpoints.size() == 1 && url.endpoints[0].port))
    throw ConfigError("", url.redacted(), "bad URL: a memory URL is memory:// or memory://<name>");
  const std::string name = url.endpoints.empty() ? "" : url.endpoints[0].host;
  return std::make_unique<MemoryBackend>(url.redacted(), table_named(name), stats);
}

}  // namespace distlock::detail::memory
