// Translation units built with and without the hook checks (NDEBUG set in
// one and not in the other) link into one program and each keeps its own
// behaviour: the library's types differ between them (an ABI-tagged inline
// namespace), so no definition of one is taken for the other's.
#include <gtest/gtest.h>

#define PROBE checked_probe
#include "probe.hpp"
#undef PROBE
#define PROBE unchecked_probe
#include "probe.hpp"
#undef PROBE

namespace {

namespace checked = timerwheel_test::checked_probe;
namespace unchecked = timerwheel_test::unchecked_probe;

TEST(Abi, CheckedAndUncheckedTypesDiffer) {
  EXPECT_NE(checked::hook_type_name(), unchecked::hook_type_name());
  EXPECT_NE(checked::wheel_type_name(), unchecked::wheel_type_name());
}

TEST(Abi, BothWork) {
  EXPECT_EQ(checked::fire_three(), 3);
  EXPECT_EQ(unchecked::fire_three(), 3);
}

TEST(Abi, UncheckedCopiesAPendingHookWithoutAborting) {
  EXPECT_TRUE(unchecked::copy_a_pending_hook());
}

TEST(AbiDeathTest, CheckedCopyOfAPendingHookAborts) {
  EXPECT_DEATH(checked::copy_a_pending_hook(), "copying or moving a pending timer hook");
}

}  // namespace
