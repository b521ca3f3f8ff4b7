// SPDX-License-Identifier: Apache-2.0
// The secrets of the URLs in use, kept out of every line the runtime logs. distlock's own
// messages never format a secret (util/url.h); this is for text it passes on from libraries that
// know nothing of secrets, such as the ZooKeeper C client's log, which names its hosts, and for
// hosts that may be a password ("user:@S3cret": Url::hosts_may_be_secret).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace distlock::detail {

class SecretFilter {
 public:
  // Secrets shorter than this are not filtered: "***" for every "a" in a message would leave
  // nothing of it, and such a password is no secret.
  static constexpr std::size_t kShortest = 4;

  // Filters `secrets` from every line logged while it lives.
  explicit SecretFilter(std::vector<std::string> secrets);
  ~SecretFilter();
  SecretFilter(const SecretFilter&) = delete;
  SecretFilter& operator=(const SecretFilter&) = delete;

  // `text` with each secret of a living filter replaced by "***".
  static std::string applied(std::string_view text);

 private:
  std::vector<std::string> secrets_;
};

}  // namespace distlock::detail
