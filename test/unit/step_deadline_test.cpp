// SPDX-License-Identifier: Apache-2.0
// How long one blocking step may take for its caller (core/step_deadline.h), and what a
// message says ended it.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/step_deadline.h"
#include "util/steady_clock.h"

using namespace std::chrono_literals;
using distlock::detail::AcquisitionDeadline;
using distlock::detail::cut_by_caller;
using distlock::detail::kNoCallerDeadline;
using distlock::detail::SteadyClock;
using distlock::detail::step_deadline;
using distlock::detail::what_ended_step;

namespace {

TEST(StepDeadline, ATryAndAWaitWithoutLimitGetTheStepsOwnTimeout) {
  for (const auto caller :
       {kNoCallerDeadline, SteadyClock::now() - 1ms, SteadyClock::time_point::max()}) {
    const auto before = SteadyClock::now();
    const auto until = step_deadline(caller, 3000ms);
    const auto after = SteadyClock::now();
    EXPECT_GE(until, before + 3000ms);
    EXPECT_LE(until, after + 3000ms);
    EXPECT_FALSE(cut_by_caller(until, caller, 3000ms));
    EXPECT_EQ(what_ended_step(until, caller, "connect_timeout", 3000ms), "connect_timeout 3000 ms");
  }
}

TEST(StepDeadline, AWaitThatEndsFirstCutsTheStep) {
  const auto caller = SteadyClock::now() + 2s;
  const auto until = step_deadline(caller, 60s);
  EXPECT_EQ(until, caller);
  EXPECT_TRUE(cut_by_caller(until, caller, 60s));
  EXPECT_EQ(what_ended_step(until, caller, "connect_timeout", 60s), "the wait ended first");
}

TEST(StepDeadline, AStepBegunJustBeforeTheWaitEndsStillGetsTheGrace) {
  const auto before = SteadyClock::now();
  const auto caller = before + 100ms;
  const auto until = step_deadline(caller, 60s);
  EXPECT_GE(until, before + distlock::detail::kStepGrace);
  EXPECT_TRUE(cut_by_caller(until, caller, 60s));
  EXPECT_EQ(what_ended_step(until, caller, "command_timeout", 60s), "the wait ended first");
}

TEST(StepDeadline, AnOwnTimeoutShorterThanTheGraceStillBounds) {
  const auto caller = SteadyClock::now() + 100ms;
  const auto after_call_start = SteadyClock::now();
  const auto until = step_deadline(caller, 300ms);
  EXPECT_LE(until, SteadyClock::now() + 300ms);
  EXPECT_GE(until, after_call_start + 300ms);
}

// A try's steps keep their own timeouts; a wait's are cut at its deadline, and once that has
// passed, a step begun then gets the grace rather than its own timeout.
TEST(StepDeadline, AnAcquisitionsStepsAfterItsWaitEndedGetTheGraceATrysTheirOwnTimeout) {
  const AcquisitionDeadline tried(SteadyClock::now());
  EXPECT_EQ(tried.for_steps(), kNoCallerDeadline);
  EXPECT_FALSE(tried.wait_over());

  const auto wait_end = SteadyClock::now() + 5s;
  const AcquisitionDeadline waiting(wait_end);
  EXPECT_EQ(step_deadline(waiting.for_steps(), 60s), wait_end);
  EXPECT_FALSE(waiting.wait_over());

  // A wait whose deadline passes while it waits (it began with a deadline ahead of it).
  const AcquisitionDeadline waited(SteadyClock::now() + 20ms);
  while (!waited.wait_over()) std::this_thread::yield();
  const auto before = SteadyClock::now();
  const auto until = step_deadline(waited.for_steps(), 60s);
  EXPECT_GE(until, before + distlock::detail::kStepGrace);
  EXPECT_LE(until, SteadyClock::now() + distlock::detail::kStepGrace);
}

}  // namespace
