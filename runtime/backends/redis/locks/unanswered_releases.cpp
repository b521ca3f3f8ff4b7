#include "backends/redis/locks/unanswered_releases.h"

namespace distlock::detail::redis {

void UnansweredReleases::sent(std::string_view lock, const Connection* on) {
  std::lock_guard guard(mutex_);
  sent_on_.insert_or_assign(std::string(lock), on);
}

void UnansweredReleases::answered(std::string_view lock, const Connection* on) {
  std::lock_guard guard(mutex_);
  const auto found = sent_on_.find(std::string(lock));
  if (found != sent_on_.end() && found->second == on) sent_on_.erase(found);
}

const Connection* UnansweredReleases::connection_of(std::string_view lock) const {
  std::lock_guard guard(mutex_);
  if (sent_on_.empty()) return nullptr;
  const auto found = sent_on_.find(std::string(lock));
  return found == sent_on_.end() ? nullptr : found->second;
}

bool UnansweredReleases::owes(std::string_view lock, const Connection* on) const {
  return connection_of(lock) == on;
}

}  // namespace distlock::detail::redis
