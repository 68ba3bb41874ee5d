// Re-entry from a callback, for every structure: an advance, in either form,
// called from inside an advance, advance_to_next or expire_all is refused
// with std::logic_error and changes nothing, whatever the callback did first.
// Clearing or emptying the structure first must not open a way around the
// check (an emptied structure has no next event to stop an advance at).
#include <timerwheel/concepts.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/structures.hpp"

namespace {

using namespace timerwheel_test;

template <class List>
struct as_types;
template <class... S>
struct as_types<structure_list<S...>> {
  using type = ::testing::Types<S...>;
};

struct structure_names {
  template <class S>
  static std::string GetName(int) {
    return name_of<S>();
  }
};

// What a callback does before it tries to advance.
enum class first { nothing, clear, cancel_all, cancel_all_then_schedule };

template <class S>
class Reentry : public ::testing::Test {
 protected:
  using tick_type = typename S::tick_type;
  using hook_type = typename S::hook_type;

  static_assert(timerwheel::timer_structure<S>);

  // Starts at `base`, with timers at base + 10 and base + 20 (and one far
  // ahead, for a structure that cascades). Wrapping ticks start just below
  // their wrap, so that each test crosses it.
  static constexpr tick_type base = std::numeric_limits<tick_type>::digits < 64
                                        ? static_cast<tick_type>(~tick_type{0} - 100)
                                        : tick_type{1000};

  Reentry() : timers(base) {
    timers.schedule(hooks[0], static_cast<tick_type>(base + 10));
    timers.schedule(hooks[1], static_cast<tick_type>(base + 20));
    timers.schedule(hooks[2], static_cast<tick_type>(base + 50));
  }

  // Does `what`, then tries every advance; each must throw and change
  // nothing: now() stays where it was in the callback.
  void misbehave(first what) {
    const tick_type at = timers.now();
    if (what == first::clear) timers.clear();
    if (what == first::cancel_all || what == first::cancel_all_then_schedule)
      for (hook_type& h : hooks) timers.cancel(h);
    if (what == first::cancel_all_then_schedule)
      timers.schedule(hooks[3], static_cast<tick_type>(at + 60));
    const std::size_t size = timers.size();
    const auto ignore = [](hook_type&) {};
    EXPECT_THROW(timers.advance(static_cast<tick_type>(at + 1000), ignore), std::logic_error);
    EXPECT_THROW(timers.advance(static_cast<tick_type>(at + 1000)), std::logic_error);
    EXPECT_THROW(timers.advance(at, ignore), std::logic_error);
    EXPECT_THROW(timers.advance(at), std::logic_error);
    EXPECT_THROW(timers.expire_all(ignore), std::logic_error);
    if constexpr (requires { timers.advance_to_next(ignore); }) {
      EXPECT_THROW(timers.advance_to_next(ignore), std::logic_error);
    }
    EXPECT_EQ(timers.now(), at);
    EXPECT_EQ(timers.size(), size);
    timers.check_invariants();
    ++calls;
  }

  // Starts afresh: only two timers, at now + 10 and now + 20, and no
  // callback run yet. Returns now.
  tick_type rearm() {
    timers.clear();
    timers.schedule(hooks[0], static_cast<tick_type>(timers.now() + 10));
    timers.schedule(hooks[1], static_cast<tick_type>(timers.now() + 20));
    calls = 0;
    return timers.now();
  }

  void clean_up() {
    timers.clear();
    timers.check_invariants();
  }

  std::vector<hook_type> hooks = std::vector<hook_type>(4);
  S timers;
  std::size_t calls = 0;
};

TYPED_TEST_SUITE(Reentry, as_types<group_every>::type, structure_names);

constexpr first every_first[] = {first::nothing, first::clear, first::cancel_all,
                                 first::cancel_all_then_schedule};

TYPED_TEST(Reentry, FromAdvance) {
  using tick = typename TestFixture::tick_type;
  for (const first what : every_first) {
    TypeParam& s = this->timers;
    const tick start = this->rearm();
    const tick to = static_cast<tick>(start + 15);
    s.advance(to, [&](typename TestFixture::hook_type&) {
      EXPECT_EQ(s.now(), static_cast<tick>(start + 10));
      this->misbehave(what);
    });
    EXPECT_EQ(this->calls, 1U) << static_cast<int>(what);
    EXPECT_EQ(s.now(), to) << static_cast<int>(what);
    s.check_invariants();
  }
  this->clean_up();
}

TYPED_TEST(Reentry, FromExpireAll) {
  using tick = typename TestFixture::tick_type;
  for (const first what : every_first) {
    TypeParam& s = this->timers;
    const tick start = this->rearm();
    s.expire_all([&](typename TestFixture::hook_type&) { this->misbehave(what); });
    EXPECT_GE(this->calls, 1U);
    EXPECT_EQ(s.now(), start) << static_cast<int>(what);
    s.check_invariants();
  }
  this->clean_up();
}

// advance_to_next is the wheel's own: the wheels alone run it.
template <class S>
class ReentryToNext : public Reentry<S> {};
using every_wheel = as_types<concat_t<wheels64, wheels32>>::type;
TYPED_TEST_SUITE(ReentryToNext, every_wheel, structure_names);

TYPED_TEST(ReentryToNext, FromAdvanceToNext) {
  using tick = typename TestFixture::tick_type;
  for (const first what : every_first) {
    TypeParam& s = this->timers;
    const tick start = this->rearm();
    EXPECT_EQ(s.advance_to_next([&](typename TestFixture::hook_type&) { this->misbehave(what); }),
              1U);
    EXPECT_EQ(this->calls, 1U);
    EXPECT_EQ(s.now(), static_cast<tick>(start + 10)) << static_cast<int>(what);
    s.check_invariants();
  }
  this->clean_up();
}

// The pull form's queue, taken from inside a callback of a later advance:
// the nested advance is refused all the same.
TYPED_TEST(Reentry, FromAdvanceWhileTimersAreQueued) {
  using tick = typename TestFixture::tick_type;
  TypeParam& s = this->timers;
  const tick start = s.now();
  EXPECT_EQ(s.advance(static_cast<tick>(start + 10)), 1U);
  this->calls = 0;
  s.advance(static_cast<tick>(start + 15),
            [&](typename TestFixture::hook_type&) { this->misbehave(first::clear); });
  EXPECT_EQ(this->calls, 1U);
  EXPECT_EQ(s.now(), static_cast<tick>(start + 15));
  this->clean_up();
}

}  // namespace
