// A lock attribute that comes from a macro expansion can neither be blanked nor have its
// arguments copied where they are written: on a definition as on a declaration (whose
// definition, in any source, could not be woven either), the tool asks for it written out.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s --implicit-check-not=error:

#define LOCKED(type) [[distlock::lock(type, 1000)]]

// CHECK: lock_in_macro.cpp:[[@LINE+2]]:1: error: 'distlock::lock' written in a macro; write the attribute itself on the function
// CHECK: lock_in_macro.cpp:6:24: note: expanded from macro 'LOCKED'
LOCKED("order") void pay() {}

// CHECK: lock_in_macro.cpp:[[@LINE+2]]:1: error: 'distlock::lock' written in a macro; write the attribute itself on the function
// CHECK: lock_in_macro.cpp:6:24: note: expanded from macro 'LOCKED'
LOCKED("order") void refund();

// CHECK: lock_in_macro.cpp:[[@LINE+2]]:1: error: 'distlock::lock' written in a macro; write the attribute itself on the function
// CHECK: lock_in_macro.cpp:6:24: note: expanded from macro 'LOCKED'
LOCKED("order") void ship();
void ship() {}
