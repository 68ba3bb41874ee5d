// Bytes the process holds from operator new (live: allocated minus freed, as malloc's usable
// sizes), counted by the replacement operators in alloc_count.cpp. W4 reads it around building a
// structure. Single-threaded use only (the bench is single-threaded).
#pragma once

#include <cstddef>

namespace timerwheel_bench {
std::ptrdiff_t live_heap_bytes() noexcept;
}
