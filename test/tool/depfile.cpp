// The tool writes its own depfile: the source and the headers it reads,
// without system headers.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %weave %s -o %t/out.cpp --depfile %t/out.d -- -std=c++20 -I%inputs
// RUN: FileCheck %s --input-file %t/out.d
// RUN: %clangxx-syntax -I%inputs %t/out.cpp
// RUN: %gxx-syntax -I%inputs %t/out.cpp

// CHECK: {{.*}}out.cpp: \
// CHECK-NEXT: {{.*}}depfile.cpp \
// CHECK-NEXT: {{.*}}Inputs/plain.h{{$}}
// CHECK-NOT: include/c++
#include <plain.h>
int main() { return 0; }
