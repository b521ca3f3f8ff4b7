// SPDX-License-Identifier: Apache-2.0
#include "backends/backend.h"

#include <exception>
#include <stdexcept>

namespace distlock::detail {

void Backend::release_unawaited(const ReleaseRequest& request, const ReleaseReportHandler& report) {
  ReleaseReport made;
  try {
    made.outcome = release(request);
  } catch (const std::exception& error) {
    made.failure = error.what();
  }
  report(made);
}

// The completion is a sink in the overrides, which keep it.
std::shared_ptr<PendingAcquisition> Backend::acquire_async(
    const AcquireRequest&, AsyncExecutor&,
    AcquireCompletion) {  // NOLINT(performance-unnecessary-value-param)
  throw std::logic_error("acquire_async on a backend without supports_async()");
}

}  // namespace distlock::detail
