// SPDX-License-Identifier: Apache-2.0
#include "util/secret_filter.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace distlock::detail {
namespace {

// Each secret with the number of living filters that hold it. Leaked on purpose: the runtime
// logs from threads that may outlive static destruction.
struct Registry {
  std::mutex mutex;
  std::map<std::string, int, std::less<>> secrets;
};

Registry& registry() {
  static auto* const instance = new Registry;
  return *instance;
}

}  // namespace

SecretFilter::SecretFilter(std::vector<std::string> secrets) {
  std::erase_if(secrets, [](const std::string& secret) { return secret.size() < kShortest; });
  secrets_ = std::move(secrets);
  Registry& known = registry();
  const std::lock_guard guard(known.mutex);
  for (const std::string& secret : secrets_) ++known.secrets[secret];
}

SecretFilter::~SecretFilter() {
  Registry& known = registry();
  const std::lock_guard guard(known.mutex);
  for (const std::string& secret : secrets_)
    if (const auto found = known.secrets.find(secret); --found->second == 0)
      known.secrets.erase(found);
}

std::string SecretFilter::applied(std::string_view text) {
  std::string filtered(text);
  Registry& known = registry();
  const std::lock_guard guard(known.mutex);
  // The longest first: a secret that holds a shorter one goes whole.
  std::vector<const std::string*> longest_first;
  longest_first.reserve(known.secrets.size());
  for (const auto& [secret, holders] : known.secrets) longest_first.push_back(&secret);
  std::sort(longest_first.begin(), longest_first.end(),
            [](const std::string* a, const std::string* b) { return a->size() > b->size(); });
  for (const std::string* secret : longest_first)
    for (auto at = filtered.find(*secret); at != std::string::npos;
         at = filtered.find(*secret, at + 3))
      filtered.replace(at, secret->size(), "***");
  return filtered;
}

}  // namespace distlock::detail
