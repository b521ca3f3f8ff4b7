// SPDX-License-Identifier: Apache-2.0
// A run as a timeline to plot (scripts/run-bench.sh --plots, docs/reliability.md), in
// seconds since the workers started, one tab-separated record a line:
//
//   hold     <worker> <start> <end> <fence>   granted, until it stopped believing it held
//   fault    <name> <start> <end> <victim>    each injection; victim -1 when none
//   valid    <worker> <from> <until>          the victim's lease, still valid after the fault
//   recovery <time>                           the first grant to another worker after it
#pragma once

#include <filesystem>

#include "report.h"

namespace distlock::reliability {

// Throws std::runtime_error when the file cannot be written.
void write_timeline(const std::filesystem::path& path, const Report& report);

}  // namespace distlock::reliability
