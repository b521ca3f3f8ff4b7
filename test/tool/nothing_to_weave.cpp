// A source without distlock attributes is copied through, with only the
// #line that keeps its name in diagnostics.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: tail -n +2 %t.cpp > %t.body
// RUN: diff %t.body %s
// RUN: FileCheck %s --input-file %t.cpp --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

// CHECK: #line 1 "{{.*}}nothing_to_weave.cpp"
// CHECK-NOT: {{^#include}}
int add(int a, int b) { return a + b; }
