// The durations flags take (common/clock.hpp parse_duration_s): every unit,
// fractions, and what is not a duration (signs, NaN, infinity, exponents,
// spaces, unknown units).
#include <gtest/gtest.h>

#include "proofpipe/common/clock.hpp"

namespace proofpipe {
namespace {

TEST(ParseDuration, EveryUnitAndFractions) {
  EXPECT_DOUBLE_EQ(*parse_duration_s("30"), 30);
  EXPECT_DOUBLE_EQ(*parse_duration_s("30s"), 30);
  EXPECT_DOUBLE_EQ(*parse_duration_s("1500ms"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_duration_s("1.5m"), 90);
  EXPECT_DOUBLE_EQ(*parse_duration_s("2h"), 7200);
  EXPECT_DOUBLE_EQ(*parse_duration_s("30d"), 30 * 86400.0);
  EXPECT_DOUBLE_EQ(*parse_duration_s("0s"), 0);  // a flag refuses it by its own range
}

TEST(ParseDuration, WhatIsNotADuration) {
  for (const char* bad :
       {"", "s", "-3s", "+3s", "nan", "inf", "infs", "1e3s", "30 s", " 30s", "30x", "30sec", ".5s", "3ds", "0x10s"}) {
    EXPECT_FALSE(parse_duration_s(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace proofpipe
