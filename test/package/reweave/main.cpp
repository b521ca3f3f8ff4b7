#include "locked.h"
int ledger_entries();
int main() { return balance(2) + ledger_entries() == 3 ? 0 : 1; }
