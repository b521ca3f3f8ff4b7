#include "failure_message.h"

namespace distlock::detail {

std::string failure_message(std::string_view lock, std::string_view server,
                            std::string_view reason) {
  std::string message = "distlock: ";
  if (!lock.empty()) {
    message += "lock '";
    message += lock;
    message += "' on ";
  }
  message += server;
  message += ": ";
  message += reason;
  return message;
}

}  // namespace distlock::detail
