// SPDX-License-Identifier: Apache-2.0
// Its woven copy must be compiled, and parsed, with the flags CMakeLists.txt gives this file.
#if !defined(LEDGER_ENTRIES) || LEDGER_SCALE != 100
#error "ledger.cpp was compiled without its own COMPILE_DEFINITIONS and COMPILE_OPTIONS"
#endif
[[distlock::lock("ledger", 1000)]] int ledger_entries() { return LEDGER_ENTRIES; }
