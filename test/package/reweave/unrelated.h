#pragma once
inline int unrelated() { return 0; }
