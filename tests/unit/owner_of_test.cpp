// Unit tests of timerwheel::owner_of: from a hook to the object whose data
// member it is, for hooks at offset 0 and further in, in classes with bases
// and virtual functions, for hook types derived from basic_timer_hook, const,
// and the member pointers it refuses at compile time.
#include <timerwheel/timer_hook.hpp>
#include <timerwheel/wheel.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;

// The hook first: at offset 0.
struct first {
  tw::timer_hook hook;
  int id = 0;
};

// Two hooks, neither at offset 0.
struct plain {
  int fd = -1;
  double weight = 0;
  tw::timer_hook idle;
  char tag = 0;
  tw::timer_hook write;
};

// A base with a virtual function, a string before the hook.
struct endpoint {
  virtual ~endpoint() = default;
  int port = 0;
};
struct connection : endpoint {
  std::string name;
  tw::timer_hook idle_timer;
  int fd = -1;
};

// A hook declared in a base that is not the first base.
struct counters {
  long hits = 0;
};
struct timed {
  int priority = 0;
  tw::timer_hook hook;
};
struct session : counters, timed {
  int user = 0;
};

// A hook type derived from timer_hook.
struct tagged_hook : tw::timer_hook {
  int tag = 0;
};
struct job {
  int id = 0;
  tagged_hook hook;
};

// A hook of 32-bit ticks.
struct small {
  std::uint16_t id = 0;
  tw::basic_timer_hook<std::uint32_t> hook;
};

static_assert(
    std::is_same_v<decltype(tw::owner_of<&plain::idle>(std::declval<tw::timer_hook&>())), plain&>);
static_assert(
    std::is_same_v<decltype(tw::owner_of<&plain::idle>(std::declval<const tw::timer_hook&>())),
                   const plain&>);
static_assert(
    std::is_same_v<decltype(tw::owner_of<&timed::hook>(std::declval<tw::timer_hook&>())), timed&>);
static_assert(noexcept(tw::owner_of<&plain::idle>(std::declval<tw::timer_hook&>())));

// What owner_of refuses, each with the concept's one error rather than a
// failure inside: the call below is well-formed exactly when the member
// pointer names a hook member.
template <auto Member, class Hook>
concept owner_of_takes = requires(Hook& h) {
  tw::owner_of<Member>(h);
};

struct wrong {
  int fd = 0;
  tw::timer_hook* hook_pointer = nullptr;
  std::uint64_t deadline = 0;
  void method() {}
};
tw::timer_hook global_hook;

static_assert(owner_of_takes<&plain::idle, tw::timer_hook>);
static_assert(owner_of_takes<&job::hook, tw::timer_hook>);
static_assert(owner_of_takes<&job::hook, tagged_hook>);
static_assert(owner_of_takes<&small::hook, tw::basic_timer_hook<std::uint32_t>>);
static_assert(!owner_of_takes<&wrong::fd, tw::timer_hook>);            // not a hook
static_assert(!owner_of_takes<&wrong::hook_pointer, tw::timer_hook>);  // a pointer to one
static_assert(!owner_of_takes<&wrong::deadline, tw::timer_hook>);
static_assert(!owner_of_takes<&wrong::method, tw::timer_hook>);  // a member function
static_assert(!owner_of_takes<&global_hook, tw::timer_hook>);    // not a member pointer
static_assert(!owner_of_takes<0, tw::timer_hook>);               // not a pointer
static_assert(!owner_of_takes<&small::hook, tw::timer_hook>);    // a hook of other ticks
static_assert(!owner_of_takes<&plain::idle, tw::basic_timer_hook<std::uint32_t>>);

TEST(OwnerOf, HookAtOffsetZero) {
  first f;
  f.id = 7;
  first& back = tw::owner_of<&first::hook>(f.hook);
  EXPECT_EQ(&back, &f);
  EXPECT_EQ(back.id, 7);
}

TEST(OwnerOf, HooksFurtherIn) {
  plain p;
  EXPECT_EQ(&tw::owner_of<&plain::idle>(p.idle), &p);
  EXPECT_EQ(&tw::owner_of<&plain::write>(p.write), &p);
  // In an array, each element's hook leads to that element.
  std::vector<plain> many(5);
  for (std::size_t i = 0; i < many.size(); ++i) {
    EXPECT_EQ(&tw::owner_of<&plain::idle>(many[i].idle), &many[i]);
    EXPECT_EQ(&tw::owner_of<&plain::write>(many[i].write), &many[i]);
  }
}

TEST(OwnerOf, ClassWithAVirtualBase) {
  connection c;
  c.fd = 12;
  connection& back = tw::owner_of<&connection::idle_timer>(c.idle_timer);
  EXPECT_EQ(&back, &c);
  EXPECT_EQ(back.fd, 12);
  const endpoint& as_base = back;
  EXPECT_EQ(&as_base, static_cast<const endpoint*>(&c));
}

TEST(OwnerOf, HookDeclaredInALaterBase) {
  session s;
  s.user = 3;
  // &session::hook names timed::hook: owner_of gives the timed subobject,
  // and a static_cast the session.
  timed& part = tw::owner_of<&session::hook>(s.hook);
  EXPECT_EQ(&part, static_cast<timed*>(&s));
  EXPECT_NE(static_cast<void*>(&part), static_cast<void*>(&s)) << "timed is not the first base";
  session& whole = static_cast<session&>(part);
  EXPECT_EQ(&whole, &s);
  EXPECT_EQ(whole.user, 3);
}

TEST(OwnerOf, HookTypeDerivedFromTimerHook) {
  job j;
  j.id = 5;
  // From the derived hook, and from the timer_hook& a wheel hands a callback.
  EXPECT_EQ(&tw::owner_of<&job::hook>(j.hook), &j);
  tw::timer_hook& base = j.hook;
  EXPECT_EQ(&tw::owner_of<&job::hook>(base), &j);
}

TEST(OwnerOf, Const) {
  const plain p{};
  const plain& back = tw::owner_of<&plain::write>(p.write);
  EXPECT_EQ(&back, &p);
  const connection c;
  EXPECT_EQ(&tw::owner_of<&connection::idle_timer>(c.idle_timer), &c);
}

TEST(OwnerOf, ThirtyTwoBitTicks) {
  small s;
  EXPECT_EQ(&tw::owner_of<&small::hook>(s.hook), &s);
}

TEST(OwnerOf, FromAWheelCallback) {
  tw::wheel<> wheel;
  std::vector<connection> connections(6);
  for (std::size_t i = 0; i < connections.size(); ++i) {
    connections[i].fd = 100 + static_cast<int>(i);
    // Deadlines out of index order, so that the firing order is not the layout's.
    wheel.schedule(connections[i].idle_timer, 50 - 7 * i);
  }
  std::vector<int> fired;
  wheel.advance(100, [&](tw::timer_hook& hook) {
    connection& c = tw::owner_of<&connection::idle_timer>(hook);
    EXPECT_EQ(&c.idle_timer, &hook);
    fired.push_back(c.fd);
  });
  EXPECT_EQ(fired, (std::vector<int>{105, 104, 103, 102, 101, 100}));
}

// A hook that is a base class subobject (struct c : timer_hook) is not
// owner_of's to find: static_cast<c&>(hook) reaches its object, as the
// language defines.

}  // namespace
