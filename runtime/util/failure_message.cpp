// SPDX-License-Identifier: Apache-2.0
#include "util/failure_message.h"

namespace distlock::detail {

std::string failure_message(std::string_view lock, std::string_view server,
                            std::string_view reason) {
  std::string message = "distlock: ";
  if (!lock.empty()) {
    message += "lock '";
    message += lock;
    message += "'";
    if (!server.empty()) message += " on ";
  }
  message += server;
  if (!lock.empty() || !server.empty()) message += ": ";
  message += reason;
  return message;
}

}  // namespace distlock::detail
