// The locked functions of the lock-order test, declared with their locks.
#pragma once

#include <string>

[[distlock::lock("payment", 5s)]]
int charge([[distlock::key]] const std::string& order, int amount);

[[distlock::lock("payment", 5s)]]
int refund([[distlock::key]] const std::string& order, int amount);

[[distlock::lock("stock", 5s, distlock::wait(2s))]]
int reserve_stock([[distlock::key]] const std::string& sku, int count);

[[distlock::lock("stock", 5s)]]
int restock([[distlock::key]] const std::string& sku, int count);
