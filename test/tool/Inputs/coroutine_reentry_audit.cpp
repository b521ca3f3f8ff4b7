// SPDX-License-Identifier: Apache-2.0
// The other source of coroutine_reentry_order.cpp's target.
#include <stand_in_awaitable.h>

asio::awaitable<int> record(int id);
int label(int id);

[[distlock::lock("audit", 1000)]]
asio::awaitable<int> audit([[distlock::key]] int id) {
  co_return co_await record(id);
}

[[distlock::lock("box", 1000)]]
int pack([[distlock::key]] int id) {
  return label(id);
}
