// The shared heart of a Client: the backend, the renewal queue and the counters. Leases keep
// it alive, so a lease may outlive the Client handle it came from.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <distlock/client.h>

#include "backend.h"
#include "renewal_queue.h"
#include "stats.h"

namespace distlock::detail {

class ClientCore : public std::enable_shared_from_this<ClientCore> {
 public:
  // Connects the backend the URL names.
  ClientCore(std::string_view url, const Options& options);
  ~ClientCore();

  // nullopt when not acquired by the deadline the spec (or try_only) sets.
  std::optional<Lease> acquire(const LockSpec& spec, const Key& key, bool try_only);
  // Called once per lease, by Lease::release or its destructor.
  ReleaseOutcome release(LeaseState& lease);

  const std::string& server() const { return backend_->server(); }
  StatsCounters& stats() { return stats_; }

 private:
  void validate(const LockSpec& spec) const;

  const std::string instance_id_;
  StatsCounters stats_;
  std::unique_ptr<Backend> backend_;
  // Declared after the backend: its thread stops before the backend goes.
  RenewalQueue renewals_;
  std::atomic<std::uint64_t> next_serial_{1};
};

}  // namespace distlock::detail
