// Functions defined in headers (inline, and a template) are woven in copies
// of the headers under --woven-root, beside copies of the other headers of
// --source-root that the source reads; every #include of such a header names
// its copy by absolute path, so the compiler sees every header woven whatever
// its include path.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %weave %inputs/headers/app/main.cpp -o %t/app/main.cpp \
// RUN:   --source-root %inputs/headers --woven-root %t \
// RUN:   -- -std=c++20 -I%inputs/headers/include
// RUN: FileCheck %s --check-prefix=STOCK --input-file %t/include/stock.h
// RUN: FileCheck %s --check-prefix=CATALOG --input-file %t/app/catalog.h
// RUN: FileCheck %s --check-prefix=MAIN --input-file %t/app/main.cpp
// RUN: %gxx-link -I%inputs/headers/include %t/app/main.cpp %runtime -o %t/main
// RUN: %clangxx-syntax -I%inputs/headers/include %t/app/main.cpp
// RUN: %t/main | FileCheck %s --check-prefix=OUTPUT

// STOCK: #include <distlock/woven.h>
// STOCK-NEXT: #line 1 "{{.*}}headers/include/stock.h"
// STOCK: inline int reserve({{\[\[ +\]\]}} const Item& item, int count) {
// STOCK: ::distlock::woven::keys(item.sku));
// STOCK: Id release({{\[\[ +\]\]}} Id id) {
// STOCK: ::distlock::woven::keys(id));

// MAIN: #line 1 "{{.*}}headers/app/main.cpp"
// MAIN-NEXT: #include "[[WOVEN:.*]]/app/catalog.h"
// MAIN-NEXT: #include <cstdio>

// CATALOG-NOT: distlock
// CATALOG: #line 1 "{{.*}}headers/app/catalog.h"
// CATALOG-NEXT: #pragma once
// CATALOG-NEXT: #include "{{.*}}/include/stock.h"

// OUTPUT: reserved 3, released 4
