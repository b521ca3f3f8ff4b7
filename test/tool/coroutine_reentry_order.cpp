// A woven coroutine that takes a lock of its own type again through other locked functions,
// in other sources: the weaver of each source cannot see it; distlock-lock-order, which merges
// the target's inventories, reports it as an error and fails (beside the lock-order cycle the
// same calls make). A coroutine called without being awaited takes nothing inside its caller.
// RUN: %weave %s -o %t.order.cpp --locks-out %t.order.json -- %flags -std=c++20 -I%inputs
// RUN: %weave %inputs/coroutine_reentry_audit.cpp -o %t.audit.cpp --locks-out %t.audit.json -- %flags -std=c++20 -I%inputs
// RUN: not %lock-order -o %t.json %t.order.json %t.audit.json 2>&1 | FileCheck %s --implicit-check-not="{{error|warning}}:"

#include <stand_in_awaitable.h>

asio::awaitable<int> audit(int id);
int pack(int id);

[[distlock::lock("order", 1000)]]
asio::awaitable<int> record([[distlock::key]] int id) {
  co_return id;
}

// CHECK: coroutine_reentry_order.cpp:[[@LINE+6]]:22: error: coroutine reentry 'reserve' -> 'audit' -> 'record': 'reserve' holds its lock of type 'order' and 'record' takes a lock of that type inside it; a coroutine's lease belongs to no thread and is not re-entered, so with the same key this waits for the coroutine itself until the spec's wait runs out; do that work in a function without {{\[\[}}distlock::lock]], or outside 'reserve'
// CHECK-NEXT: coroutine_reentry_order.cpp:[[@LINE+5]]:22: note: 'reserve' awaits 'audit' here
// CHECK-NEXT: coroutine_reentry_audit.cpp:10:22: note: 'audit' awaits 'record' here
[[distlock::lock("order", 1000)]]
asio::awaitable<int> reserve([[distlock::key]] int id) {
  asio::awaitable<int> later = audit(id);
  co_return co_await audit(id);
}

int label(int id);

// CHECK: coroutine_reentry_order.cpp:[[@LINE+5]]:13: error: coroutine reentry 'ship' -> 'pack' -> 'label': 'ship' holds its lock of type 'ship'
// CHECK-NEXT: coroutine_reentry_order.cpp:[[@LINE+4]]:13: note: 'ship' calls 'pack' here
// CHECK-NEXT: coroutine_reentry_audit.cpp:15:10: note: 'pack' calls 'label' here
[[distlock::lock("ship", 1000)]]
asio::awaitable<int> ship([[distlock::key]] int id) {
  co_return pack(id);
}

[[distlock::lock("ship", 1000)]]
int label([[distlock::key]] int id) {
  return id;
}

// CHECK: error: lock-order cycle 'audit' -> 'order' -> 'audit'
// CHECK: error: lock-order cycle 'box' -> 'ship' -> 'box'
