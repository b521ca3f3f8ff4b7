[[distlock::lock("ledger", 1000)]] int ledger_entries() { return 1; }
