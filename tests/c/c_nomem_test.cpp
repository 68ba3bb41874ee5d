// An allocation that fails inside the C library comes back as TW_ENOMEM,
// never as an exception crossing into the caller, and changes nothing: the
// global operator new is replaced here by one that throws std::bad_alloc
// while `failing` is set. (C++ only for the replacement; the calls are the
// C API's.)
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <new>
#include <timerwheel.h>

namespace {
bool failing = false;
int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

void* allocate(std::size_t n, std::size_t align) {
  if (failing) throw std::bad_alloc();
  if (n == 0) n = 1;
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(n)
                : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) {
  return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

int main() {
  for (const tw_config config : {TW_CONFIG_DEFAULT, TW_CONFIG_COUNTED, TW_CONFIG_WRAP32}) {
    tw_wheel* w = nullptr;
    failing = true;
    const tw_status s = tw_wheel_new(&w, config, 5);
    failing = false;
    expect(s == TW_ENOMEM, "tw_wheel_new under a failing allocation returns TW_ENOMEM");
    expect(w == nullptr, "tw_wheel_new under a failing allocation leaves *out untouched");
    // And the same call succeeds once memory is back.
    expect(tw_wheel_new(&w, config, 5) == TW_OK && w != nullptr, "tw_wheel_new afterwards");
    tw_wheel_free(w);
  }
  if (failures == 0) std::fprintf(stderr, "all checks passed\n");
  return failures == 0 ? 0 : 1;
}
