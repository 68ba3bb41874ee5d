// Replacement operator new/delete that count live bytes (see alloc_count.hpp). The cost is one
// malloc_usable_size and an add per allocation, for every structure alike.
#include "alloc_count.hpp"

#include <cstdlib>
#include <malloc.h>
#include <new>

namespace {
std::ptrdiff_t g_live = 0;

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  g_live += static_cast<std::ptrdiff_t>(malloc_usable_size(p));
  return p;
}
void* counted_alloc_aligned(std::size_t n, std::align_val_t a) {
  const std::size_t align = static_cast<std::size_t>(a);
  void* p = std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  g_live += static_cast<std::ptrdiff_t>(malloc_usable_size(p));
  return p;
}
void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  g_live -= static_cast<std::ptrdiff_t>(malloc_usable_size(p));
  std::free(p);
}
}  // namespace

std::ptrdiff_t timerwheel_bench::live_heap_bytes() noexcept { return g_live; }

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_alloc_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_alloc_aligned(n, a); }
// The nothrow forms too (std::stable_sort's buffer takes one): otherwise the library's versions
// pair malloc with our free and the count misses them.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p != nullptr) g_live += static_cast<std::ptrdiff_t>(malloc_usable_size(p));
  return p;
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
