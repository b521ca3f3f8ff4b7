// SPDX-License-Identifier: Apache-2.0
#include <distlock/error.h>

#include "util/failure_message.h"

namespace distlock {

Error::Error(std::string lock, std::string server, std::string reason)
    : std::runtime_error(detail::failure_message(lock, server, reason)),
      lock_(std::move(lock)),
      server_(std::move(server)),
      reason_(std::move(reason)) {}

}  // namespace distlock
