// A key parameter must have a name in the definition.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

[[distlock::lock("slot", 1000)]] void book([[distlock::key]] int slot);
// CHECK: unnamed_key_parameter.cpp:[[@LINE+1]]:14: error: the key parameter 1 has no name in this definition; name it
void book(int) {}
