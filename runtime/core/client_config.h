// SPDX-License-Identifier: Apache-2.0
// Options as a URL's query string adjusts them.
#pragma once

#include <initializer_list>
#include <span>
#include <string_view>

#include <distlock/client.h>

#include "util/url.h"

namespace distlock::detail {

// Applies connect_timeout, command_timeout, max_connections and session_timeout from the
// query string.
// Throws ConfigError for a malformed value, or for a parameter outside `known`.
Options options_from_url(const Url& url, Options defaults, std::span<const std::string_view> known);
inline Options options_from_url(const Url& url, Options defaults,
                                std::initializer_list<std::string_view> known) {
  return options_from_url(url, std::move(defaults),
                          std::span<const std::string_view>(known.begin(), known.size()));
}

}  // namespace distlock::detail
