#include <cstdio>

#include "orders.h"

int main() {
  std::printf("charged %d, restocked %d\n", charge("o1", 10), restock("s1", 2));
  return 0;
}
