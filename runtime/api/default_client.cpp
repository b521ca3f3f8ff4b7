// SPDX-License-Identifier: Apache-2.0
#include <cstdlib>
#include <mutex>
#include <utility>

#include <distlock/client.h>
#include <distlock/error.h>

namespace distlock {
namespace {

constexpr const char* kDefaultUrl = "redis://127.0.0.1:6379";

struct DefaultClient {
  std::mutex mutex;
  std::string url;
  Options options;
  bool configured = false;
  std::shared_ptr<Client> client;
};

DefaultClient& default_state() {
  static DefaultClient state;
  return state;
}

}  // namespace

void configure(std::string_view url, Options options) {
  auto& state = default_state();
  std::lock_guard lock(state.mutex);
  if (state.client)
    throw ConfigError("", state.client->server(),
                      "distlock::configure: the default client is already in use; call "
                      "configure() before the first lock");
  state.url = url;
  state.options = std::move(options);
  state.configured = true;
}

Client& default_client() {
  auto& state = default_state();
  std::string url;
  Options options;
  {
    std::lock_guard lock(state.mutex);
    if (state.client) return *state.client;
    url = state.url;
    options = state.options;
    if (!state.configured) {
      const char* from_environment = std::getenv("DISTLOCK_URL");
      url =
          from_environment != nullptr && *from_environment != '\0' ? from_environment : kDefaultUrl;
    }
  }
  // Connected without the lock: what connecting logs (through the user's logger, which may
  // itself take a lock) runs under no lock of ours. Two first callers may both connect; the
  // client made second is dropped, after the lock is released.
  std::shared_ptr<Client> made = Client::connect(url, options);
  std::lock_guard lock(state.mutex);
  if (!state.client) state.client = std::move(made);
  return *state.client;
}

}  // namespace distlock
