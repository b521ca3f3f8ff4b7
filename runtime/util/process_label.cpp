// SPDX-License-Identifier: Apache-2.0
#include "util/process_label.h"

#include <unistd.h>

#include <climits>

namespace distlock::detail {
namespace {

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace

std::string process_label() {
  static const std::string host = host_name();
  return host + ' ' + std::to_string(getpid());
}

}  // namespace distlock::detail
