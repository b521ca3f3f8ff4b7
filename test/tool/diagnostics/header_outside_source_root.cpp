// A locked function defined in a header is woven in a copy of the header under --woven-root,
// which only headers under --source-root get: one outside it, or a weave without the roots,
// is an error at the function's body, and nothing is written.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not %weave %inputs/outside_root/src/main.cpp -o %t/main.cpp \
// RUN:   -- -std=c++20 -I%inputs/outside_root/include 2>&1 | FileCheck %s
// RUN: not %weave %inputs/outside_root/src/main.cpp -o %t/main.cpp \
// RUN:   --source-root %inputs/outside_root/src --woven-root %t/woven \
// RUN:   -- -std=c++20 -I%inputs/outside_root/include 2>&1 | FileCheck %s
// RUN: not ls %t/main.cpp %t/woven

// CHECK: restock.h:3:61: error: this locked function is defined in '{{.*}}outside_root/include/restock.h', which distlock-weave can weave only as a copy under --woven-root: pass --source-root with a directory holding the header (distlock_weave() in CMake does), or define the function in a source file
// CHECK-NEXT: {{^}}[{{\[}}distlock::lock("inventory", 1000)]] inline void restock() {}
