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
