#include "restock.h"

int main() { restock(); }
