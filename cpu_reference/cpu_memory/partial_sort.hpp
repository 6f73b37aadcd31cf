// The partial radix sort of the sort-first CPU algorithms (thesis Algs 2.4-2.6) and its reusable
// scratch live with Alg 2.4 in cpu_reference/multireduce/cpu_multireduce.hpp: one sort for all.
#pragma once
#include "../multireduce/cpu_multireduce.hpp"
