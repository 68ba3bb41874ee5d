// The library's ABI tag. Whether hooks check their misuse (TIMERWHEEL_CHECKED:
// on unless NDEBUG is defined) changes their destructors and copies, so every
// name of the library lives in an inline namespace that says which: a
// program may link translation units built with and without NDEBUG, each
// with types of its own, without breaking the one-definition rule. Users
// never name the tag: timerwheel::wheel<> finds it.
#pragma once

#if !defined(TIMERWHEEL_CHECKED)
#if defined(NDEBUG)
#define TIMERWHEEL_CHECKED 0
#else
#define TIMERWHEEL_CHECKED 1
#endif
#endif

#if TIMERWHEEL_CHECKED
#define TIMERWHEEL_ABI checked
#else
#define TIMERWHEEL_ABI unchecked
#endif
