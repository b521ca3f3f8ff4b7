// SPDX-License-Identifier: Apache-2.0
// SIGINT and SIGTERM as a way to stop a loop cleanly: blocked while this lives (threads started
// meanwhile inherit the mask, so no other thread takes them), and awaited between refreshes.
#pragma once

#include <signal.h>

#include <distlock/duration.h>

namespace distlock::cli {

class StopSignals {
 public:
  StopSignals();
  // Unblocks them again; one that arrived meanwhile is then delivered as usual.
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Waits up to `timeout`; true when SIGINT or SIGTERM arrived.
  bool wait(Millis timeout) const;

 private:
  sigset_t stopping_{};
  sigset_t previous_{};
};

}  // namespace distlock::cli
