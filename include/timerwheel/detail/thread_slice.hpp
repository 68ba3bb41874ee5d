// The time slice a thread asks of the scheduler: on Linux 6.12 and later,
// sched_setattr's sched_runtime for a thread of a fair policy (SCHED_OTHER,
// SCHED_BATCH) sets the slice EEVDF gives it. A thread with a shorter slice
// than the one running gets an earlier virtual deadline when it wakes, and
// preempts it at once instead of waiting for the running slice to end; its
// share of the processor is unchanged (that is its weight, its nice value).
// Any unprivileged thread may set its own. Older kernels accept the call and
// ignore the field; other systems have no such call, and nothing is done.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// The range Linux clamps a requested slice to.
inline constexpr std::chrono::nanoseconds min_thread_slice = std::chrono::microseconds(100);
inline constexpr std::chrono::nanoseconds max_thread_slice = std::chrono::milliseconds(100);

#if defined(__linux__) && defined(SYS_sched_setattr) && defined(SYS_sched_getattr)

// The kernel's struct sched_attr (its first version, 48 bytes: every field
// up to sched_period; the kernel accepts any size it knows).
struct sched_attr_v0 {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};

// The calling thread's requested slice, or zero where the system says none.
inline std::chrono::nanoseconds thread_slice() noexcept {
  sched_attr_v0 attr{};
  if (::syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return {};
  return std::chrono::nanoseconds(static_cast<std::int64_t>(attr.sched_runtime));
}

// Asks for `slice` for the calling thread, keeping its policy and nice
// value; a thread under a real-time or deadline policy is left alone.
// Returns whether the kernel took the request (an old kernel takes it and
// ignores it: thread_slice() then reads back something else).
inline bool request_thread_slice(std::chrono::nanoseconds slice) noexcept {
  sched_attr_v0 attr{};
  if (::syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return false;
  if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH) return false;
  attr.size = sizeof attr;
  attr.sched_flags = 0;
  attr.sched_runtime = static_cast<std::uint64_t>(slice.count());
  return ::syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
}

#else

inline std::chrono::nanoseconds thread_slice() noexcept { return {}; }
inline bool request_thread_slice(std::chrono::nanoseconds) noexcept { return false; }

#endif

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
