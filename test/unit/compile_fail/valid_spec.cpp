// Positive control: everything here compiles, so a failure of the other cases is theirs, not
// the harness's (include path, standard, compiler).
// EXPECT-SUCCESS
#include <chrono>
#include <string>
#include <distlock/key.h>
#include <distlock/spec.h>

using namespace std::chrono_literals;

constexpr auto s = distlock::spec("order", std::chrono::seconds(1));
static_assert(s.ttl == 1s);
constexpr auto t = distlock::spec("order", "30s", distlock::wait(2s), distlock::renew(false));
static_assert(t.wait == 2s && !t.renew);
constexpr auto pool = distlock::spec("pool", "10s", distlock::permits(3));
static_assert(pool.permits == 3 && pool.mode == distlock::Mode::exclusive);
constexpr auto queue = distlock::spec("order", "10s", distlock::fair);
static_assert(queue.fair && queue.permits == 0);

namespace app {
struct WithToKey {
  int id;
};
std::string to_key(const WithToKey& w) { return std::to_string(w.id); }
}  // namespace app

distlock::LockSpec make() { return distlock::spec("order", "1m30s", distlock::try_only); }
std::string key() { return distlock::to_key(app::WithToKey{42}); }
