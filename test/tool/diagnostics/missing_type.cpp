// The lock needs at least its type (and ttl).
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

// CHECK: missing_type.cpp:[[@LINE+1]]:3: error: 'distlock::lock' needs the lock type and ttl: write {{\[\[}}distlock::lock("type", 30s){{\]\]}}
[[distlock::lock]] void close_books() {}
// CHECK: missing_type.cpp:[[@LINE+1]]:3: error: 'distlock::lock' needs the lock type and ttl
[[distlock::lock()]] void open_books() {}
