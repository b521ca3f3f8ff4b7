// SPDX-License-Identifier: Apache-2.0
#include "locked.h"
int ledger_entries();
int main() { return balance(2) + ledger_entries() == 3 ? 0 : 1; }
