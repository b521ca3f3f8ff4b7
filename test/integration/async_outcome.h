// SPDX-License-Identifier: Apache-2.0
// Client::acquire_async in tests: an acquisition started with its outcome (error, lease, the
// thread its handler ran on) delivered to a future, awaited with a limit, and its error read as
// the type expected.
#pragma once

#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include <distlock/distlock.h>

namespace distlock::testing {

// What one asynchronous acquisition ended with, and on which thread.
struct Outcome {
  std::exception_ptr error;
  Lease lease;
  std::thread::id thread;
};

// Whether the client's thread came back, within 30 s, from what it was doing, such as posting
// a completion into an executor that must not be destroyed before (an io_context, or Asio's
// system context for use_future, which goes at the process's exit): its next task, this
// acquisition's handler, runs after that post returned.
inline bool client_thread_caught_up(Client& client) {
  auto handled = std::make_shared<std::promise<void>>();
  std::future<void> caught_up = handled->get_future();
  client.acquire_async(spec("caught-up", std::chrono::seconds(30)), "caught-up",
                       [handled](std::exception_ptr, Lease) { handled->set_value(); });
  return caught_up.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
}

// Starts an acquisition whose outcome the returned future gets.
inline std::future<Outcome> start_acquisition(Client& client, const LockSpec& spec,
                                              const std::string& key,
                                              AsyncAcquisition* handle = nullptr) {
  auto promise = std::make_shared<std::promise<Outcome>>();
  auto future = promise->get_future();
  AsyncAcquisition started =
      client.acquire_async(spec, key, [promise](std::exception_ptr error, Lease lease) {
        promise->set_value({error, std::move(lease), std::this_thread::get_id()});
      });
  if (handle != nullptr) *handle = started;
  return future;
}

inline Outcome outcome_of(std::future<Outcome>& future) {
  if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready)
    throw std::runtime_error("the acquisition's handler was not called within 30 s");
  return future.get();
}

template <class ErrorType>
std::string error_of_type(const Outcome& outcome) {
  if (!outcome.error) return "no error";
  try {
    std::rethrow_exception(outcome.error);
  } catch (const ErrorType& error) {
    return error.what();
  } catch (const std::exception& error) {
    return std::string("another error: ") + error.what();
  }
}

}  // namespace distlock::testing
