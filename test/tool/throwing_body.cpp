// A body that throws releases its lock on the way out.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s

#include <cstdio>
#include <distlock/distlock.h>
#include <stdexcept>
#include <thread>

[[distlock::lock("payment", 30s)]]
void charge([[distlock::key]] int payment) {
  std::printf("charging %d under %s\n", payment, distlock::current()->name().c_str());
  throw std::runtime_error("card declined");
}

int main() {
  // CHECK: charging 9 under payment:9
  // CHECK-NEXT: caught: card declined
  // CHECK-NEXT: free for another thread: yes
  try {
    charge(9);
  } catch (const std::exception& error) {
    std::printf("caught: %s\n", error.what());
  }
  bool free = false;
  std::thread other([&] {
    free = distlock::default_client()
               .try_acquire(distlock::spec("payment", std::chrono::seconds(1)), 9)
               .has_value();
  });
  other.join();
  std::printf("free for another thread: %s\n", free ? "yes" : "no");
  return 0;
}
