// SPDX-License-Identifier: Apache-2.0
// Acquisition ids: "<type prefix>-<hash of the acquisition time>-<sequence>", unique per
// acquisition across threads and processes, for logs and for inspecting a lock's holder.
#pragma once

#include <string>
#include <string_view>

namespace distlock::detail {

std::string make_acquisition_id(std::string_view type);

}  // namespace distlock::detail
