// SPDX-License-Identifier: Apache-2.0
#pragma once
inline int unrelated() { return 0; }
