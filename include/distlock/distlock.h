// SPDX-License-Identifier: Apache-2.0
// distlock: distributed locks for C++. Include this one header.
#pragma once

#include <distlock/annotation.h>
#include <distlock/client.h>
#include <distlock/current.h>
#include <distlock/duration.h>
#include <distlock/election.h>
#include <distlock/error.h>
#include <distlock/events.h>
#include <distlock/key.h>
#include <distlock/lease.h>
#include <distlock/locked_call.h>
#include <distlock/log.h>
#include <distlock/prometheus.h>
#include <distlock/scoped_lock.h>
#include <distlock/spec.h>
