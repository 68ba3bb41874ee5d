#include <timerwheel/timing_wheel.hpp>

#include <gtest/gtest.h>
TEST(TimingWheel, Compiles) {
  timerwheel::timing_wheel<int> t;
  auto e = t.add(3, 1);
  EXPECT_TRUE(t.mem(e));
  EXPECT_EQ(t.min_elt(), e);
}
