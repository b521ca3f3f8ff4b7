// SPDX-License-Identifier: Apache-2.0
#include "admin/holder_text.h"

#include "util/decimal.h"

namespace distlock::detail {

HolderText parse_holder_text(std::string_view text) {
  HolderText parsed;
  const auto last_space = text.rfind(' ');
  const auto pid_space = last_space == std::string_view::npos || last_space == 0
                             ? std::string_view::npos
                             : text.rfind(' ', last_space - 1);
  if (pid_space == std::string_view::npos) {
    parsed.host = std::string(text);
    return parsed;
  }
  const std::string_view pid = text.substr(pid_space + 1, last_space - pid_space - 1);
  const auto value = parse_decimal<long long>(pid);
  if (!value) {
    parsed.host = std::string(text);
    return parsed;
  }
  parsed.host = std::string(text.substr(0, pid_space));
  parsed.pid = *value;
  parsed.last = std::string(text.substr(last_space + 1));
  return parsed;
}

}  // namespace distlock::detail
