// The key attribute anywhere but on a parameter.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

// CHECK: key_on_variable.cpp:[[@LINE+1]]:3: error: 'distlock::key' applies to function parameters; put it on the parameter that names the locked thing
[[distlock::key]] int order_id = 1;
