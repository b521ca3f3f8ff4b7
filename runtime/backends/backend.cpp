// SPDX-License-Identifier: Apache-2.0
#include "backends/backend.h"

#include <exception>

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

}  // namespace distlock::detail
