// TIMERWHEEL_ALWAYS_INLINE: for the few small functions of the hot path
// (schedule, cancel, an advance with nothing due, and what they call) whose
// inlining must not depend on the optimiser's budget: at -O2 a compiler may
// keep a function of a few dozen instructions out of line, which costs every
// call a dozen more. Their rare branches go out of line instead, so that what
// is forced inline stays small. Also for what a function written out once
// per level calls (the wheel's spread_in), which the compiler otherwise
// keeps out of line, a call a move; and for the pop's path most holds take
// (the wheel's take_lone).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define TIMERWHEEL_ALWAYS_INLINE [[gnu::always_inline]] inline
#define TIMERWHEEL_NOINLINE [[gnu::noinline]]
#else
#define TIMERWHEEL_ALWAYS_INLINE inline
#define TIMERWHEEL_NOINLINE
#endif
