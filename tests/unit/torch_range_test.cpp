// The torch-version range: PEP 440 specifiers at the granularity of minor releases.
#include <gtest/gtest.h>

#include "rules/settings.h"

namespace ptlint::rules {
namespace {

TorchRange parsed(const char* text) {
  auto r = TorchRange::parse(text);
  EXPECT_TRUE(r.has_value()) << text;
  return r.value_or(TorchRange{});
}

TEST(TorchRange, BareVersionIsAFloor) {
  auto r = parsed("2.1");
  EXPECT_EQ(r.floor(), (TorchVersion{2, 1}));
  EXPECT_EQ(r.newestKnown(), kNewestKnownTorch);
  EXPECT_EQ(r.str(), ">=2.1");
}

TEST(TorchRange, Bounds) {
  auto r = parsed(">=2.4,<2.9");
  EXPECT_EQ(r.floor(), (TorchVersion{2, 4}));
  EXPECT_EQ(r.newestKnown(), (TorchVersion{2, 8}));
  EXPECT_TRUE(r.includesAny({2, 6}));
  EXPECT_FALSE(r.includesAny({2, 9}));
  EXPECT_TRUE(r.includesAny({2, 0}, TorchVersion{2, 5}));
  EXPECT_FALSE(r.includesAny({2, 0}, TorchVersion{2, 4}));
  EXPECT_EQ(parsed("<2.9.1,>=2.0.0").newestKnown(), (TorchVersion{2, 9}));
  EXPECT_EQ(parsed("<=2.9").newestKnown(), (TorchVersion{2, 9}));
  EXPECT_EQ(parsed(">= 1.8 , < 3").newestKnown(), kNewestKnownTorch);
  EXPECT_EQ(parsed(">= 1.8 , < 3").floor(), (TorchVersion{1, 8}));
  EXPECT_EQ(parsed("<2.0").newestKnown(), (TorchVersion{1, 13}));
}

TEST(TorchRange, PinsWildcardsCompatibleAndExclusions) {
  auto pin = parsed("==2.4.*");
  EXPECT_EQ(pin.floor(), (TorchVersion{2, 4}));
  EXPECT_EQ(pin.newestKnown(), (TorchVersion{2, 4}));
  EXPECT_EQ(parsed("==2.4.1+cu121").newestKnown(), (TorchVersion{2, 4}));
  auto compatible = parsed("~=2.4");
  EXPECT_EQ(compatible.floor(), (TorchVersion{2, 4}));
  EXPECT_EQ(compatible.newestKnown(), kNewestKnownTorch);
  EXPECT_EQ(parsed("~=2.4.1").newestKnown(), (TorchVersion{2, 4}));
  auto excluded = parsed(">=2.4,!=2.5.*,<2.6");
  EXPECT_FALSE(excluded.includes({2, 5}));
  EXPECT_EQ(excluded.newestKnown(), (TorchVersion{2, 4}));
  EXPECT_TRUE(parsed(">=2.4,!=2.5.0").includes({2, 5}));  // 2.5.1 is still in
  EXPECT_EQ(parsed(">2.0").floor(), (TorchVersion{2, 0}));   // 2.0.1 > 2.0
  EXPECT_EQ(parsed(">=2.1.0a0").floor(), (TorchVersion{2, 1}));
}

TEST(TorchRange, RejectsWhatHoldsNoRelease) {
  for (const char* bad : {"", "banana", ">=2.9,<2.4", "2.*", ">=2.*", "~=2", ">=", "2.1,", ">=2.1;", "1!2.0"})
    EXPECT_FALSE(TorchRange::parse(bad).has_value()) << bad;
}

TEST(TorchRange, SettingsFloorFollowsTheRange) {
  Settings s;
  EXPECT_EQ(s.torchRange().floor(), kDefaultTorchFloor);
  s.setTorchRange(parsed(">=2.1,<2.5"));
  EXPECT_EQ(s.torch_version, (TorchVersion{2, 1}));
  s.torch_version = {1, 13};  // code that sets only the floor
  EXPECT_EQ(s.torchRange().floor(), (TorchVersion{1, 13}));
  EXPECT_EQ(s.torchRange().newestKnown(), (TorchVersion{2, 4}));
}

}  // namespace
}  // namespace ptlint::rules
