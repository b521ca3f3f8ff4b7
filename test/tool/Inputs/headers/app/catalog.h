#pragma once
#include "stock.h"
