// A key attribute that comes from a macro expansion cannot be blanked where it is written.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

#define KEY [[distlock::key]]
// CHECK: key_in_macro.cpp:[[@LINE+2]]:44: error: 'distlock::key' written in a macro; write the attribute itself on the parameter
// CHECK: key_in_macro.cpp:4:15: note: expanded from macro 'KEY'
[[distlock::lock("order", 1000)]] void pay(KEY int id) {}
