#pragma once

[[distlock::lock("inventory", 1000)]] inline void restock() {}
