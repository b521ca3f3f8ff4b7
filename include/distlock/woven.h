// SPDX-License-Identifier: Apache-2.0
// The contract between distlock-weave and the runtime. A woven file includes this header and
// nothing else of distlock's, and its guard (with the calls a woven coroutine's body makes for
// its lease, rewritten to take the guard) names nothing of distlock but what namespace
// distlock::woven declares below. test/tool/unit/woven_contract_test.cpp fails when the tool
// emits a name this header does not declare, or this header declares one the tool no longer
// emits; compiling this header (and every woven output in the lit suite) fails when the
// runtime no longer has what it names.
//
// The attribute's own arguments are the user's code, pasted into the spec: the options they
// use (distlock::wait, try_only, renew, read, write, on_busy, per_key, hold_at_least, on_lost)
// come with spec.h.
#pragma once

#include <chrono>

#include <distlock/annotation.h>
#include <distlock/locked_call.h>
#include <distlock/spec.h>

namespace distlock {
namespace woven {

using ::distlock::annotation;
using ::distlock::busy_result;
using ::distlock::calls_fallback;
using ::distlock::checked;
using ::distlock::current;
using ::distlock::current_leases;
using ::distlock::fallback_fits;
using ::distlock::keys;
using ::distlock::LockedCall;
using ::distlock::no_object;
using ::distlock::NoObject;
using ::distlock::raises_when_busy;
using ::distlock::skip_fits;

}  // namespace woven
}  // namespace distlock
