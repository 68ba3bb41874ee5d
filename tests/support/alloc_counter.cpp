#include "alloc_counter.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace timerwheel_test::alloc {
namespace {

// Every block carries a header just before the pointer handed out: its size,
// and whether it was allocated while counting.
struct header {
  std::size_t size;
  std::size_t counted;
};
constexpr std::size_t kHeader = 16;
static_assert(sizeof(header) <= kHeader);
constexpr std::size_t kCountedTag = 0xC0DEC0DE;

std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_allocations{0};
std::atomic<std::size_t> g_deallocations{0};
std::atomic<std::size_t> g_bytes{0};
std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};

void* allocate(std::size_t size, std::size_t align) noexcept {
  const std::size_t offset = align > kHeader ? align : kHeader;
  void* raw = nullptr;
  if (align > alignof(std::max_align_t)) {
    // aligned_alloc wants a size that is a multiple of the alignment.
    const std::size_t total = (offset + size + align - 1) / align * align;
    raw = std::aligned_alloc(align, total);
  } else {
    raw = std::malloc(offset + size);
  }
  if (raw == nullptr) return nullptr;
  auto* user = static_cast<unsigned char*>(raw) + offset;
  auto* h = reinterpret_cast<header*>(user - kHeader);
  h->size = size;
  h->counted = 0;
  if (g_counting.load(std::memory_order_relaxed)) {
    h->counted = kCountedTag;
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(size, std::memory_order_relaxed);
    const std::size_t live = g_live.fetch_add(size, std::memory_order_relaxed) + size;
    std::size_t peak = g_peak.load(std::memory_order_relaxed);
    while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
    }
  }
  return user;
}

void release(void* p, std::size_t align) noexcept {
  if (p == nullptr) return;
  const std::size_t offset = align > kHeader ? align : kHeader;
  auto* user = static_cast<unsigned char*>(p);
  auto* h = reinterpret_cast<header*>(user - kHeader);
  if (g_counting.load(std::memory_order_relaxed)) {
    g_deallocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (h->counted == kCountedTag) g_live.fetch_sub(h->size, std::memory_order_relaxed);
  std::free(user - offset);
}

void* allocate_or_throw(std::size_t size, std::size_t align) {
  void* p = allocate(size, align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

constexpr std::size_t kDefaultAlign = alignof(std::max_align_t);

}  // namespace

void start() noexcept {
  g_counting.store(false);
  g_allocations.store(0);
  g_deallocations.store(0);
  g_bytes.store(0);
  g_live.store(0);
  g_peak.store(0);
  g_counting.store(true);
}

counts current() noexcept {
  counts c;
  c.allocations = g_allocations.load();
  c.deallocations = g_deallocations.load();
  c.bytes_allocated = g_bytes.load();
  c.live_bytes = g_live.load();
  c.peak_live_bytes = g_peak.load();
  return c;
}

counts stop() noexcept {
  g_counting.store(false);
  return current();
}

}  // namespace timerwheel_test::alloc

namespace ta = timerwheel_test::alloc;

void* operator new(std::size_t size) { return ta::allocate_or_throw(size, ta::kDefaultAlign); }
void* operator new[](std::size_t size) { return ta::allocate_or_throw(size, ta::kDefaultAlign); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return ta::allocate(size, ta::kDefaultAlign);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return ta::allocate(size, ta::kDefaultAlign);
}
void* operator new(std::size_t size, std::align_val_t align) {
  return ta::allocate_or_throw(size, static_cast<std::size_t>(align));
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return ta::allocate_or_throw(size, static_cast<std::size_t>(align));
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return ta::allocate(size, static_cast<std::size_t>(align));
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return ta::allocate(size, static_cast<std::size_t>(align));
}

void operator delete(void* p) noexcept { ta::release(p, ta::kDefaultAlign); }
void operator delete[](void* p) noexcept { ta::release(p, ta::kDefaultAlign); }
void operator delete(void* p, std::size_t) noexcept { ta::release(p, ta::kDefaultAlign); }
void operator delete[](void* p, std::size_t) noexcept { ta::release(p, ta::kDefaultAlign); }
void operator delete(void* p, const std::nothrow_t&) noexcept { ta::release(p, ta::kDefaultAlign); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  ta::release(p, ta::kDefaultAlign);
}
void operator delete(void* p, std::align_val_t align) noexcept {
  ta::release(p, static_cast<std::size_t>(align));
}
void operator delete[](void* p, std::align_val_t align) noexcept {
  ta::release(p, static_cast<std::size_t>(align));
}
void operator delete(void* p, std::size_t, std::align_val_t align) noexcept {
  ta::release(p, static_cast<std::size_t>(align));
}
void operator delete[](void* p, std::size_t, std::align_val_t align) noexcept {
  ta::release(p, static_cast<std::size_t>(align));
}
void operator delete(void* p, std::align_val_t align, const std::nothrow_t&) noexcept {
  ta::release(p, static_cast<std::size_t>(align));
}
void operator delete[](void* p, std::align_val_t align, const std::nothrow_t&) noexcept {
  ta::release(p, static_cast<std::size_t>(align));
}
