#pragma once
inline int plain() { return 1; }
