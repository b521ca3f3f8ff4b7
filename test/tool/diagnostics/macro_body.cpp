// A body that comes from a macro has no '{' in the source to weave after.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

#define EMPTY_BODY { }
// CHECK: macro_body.cpp:[[@LINE+2]]:48: error: the body of 'flush' comes from a macro expansion, where no guard can be inserted; write the body's braces outside the macro, or lock by hand with distlock::ScopedLock
// CHECK: note: expanded from macro 'EMPTY_BODY'
[[distlock::lock("flush", 1000)]] void flush() EMPTY_BODY
