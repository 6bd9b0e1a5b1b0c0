// Tests of the composite integer key: KeyLayout packing and field extraction,
// and the two comparison policies (GenericKeyCompare, IntegerKeyCompare),
// which must both give the tuple (lexicographic) order of the fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "btree/key.hpp"
#include "common/random.hpp"

namespace dbrepro {
namespace {

// KeyLayout::pack takes an initializer_list; this spreads a runtime vector.
PackedKey pack_vec(const KeyLayout& layout, const std::vector<u64>& f) {
  switch (f.size()) {
    case 0: return layout.pack({});
    case 1: return layout.pack({f[0]});
    case 2: return layout.pack({f[0], f[1]});
    case 3: return layout.pack({f[0], f[1], f[2]});
    case 4: return layout.pack({f[0], f[1], f[2], f[3]});
    case 5: return layout.pack({f[0], f[1], f[2], f[3], f[4]});
    case 6: return layout.pack({f[0], f[1], f[2], f[3], f[4], f[5]});
    default: return layout.pack({f[0], f[1], f[2], f[3], f[4], f[5], f[6]});
  }
}

u64 max_of(const KeyLayout& layout, int i) { return layout.mask(i); }

// A random value of field i. Mostly small values (so that leading fields tie
// often and later fields decide), sometimes the extremes, sometimes anything.
u64 random_field(Random& rng, const KeyLayout& layout, int i) {
  const u64 m = layout.mask(i);
  switch (rng.uniform(0, 5)) {
    case 0: return 0;
    case 1: return m;
    case 2: return rng.next() & m;
    default: return static_cast<u64>(rng.uniform(0, 3)) & m;
  }
}

std::vector<u64> random_fields(Random& rng, const KeyLayout& layout) {
  std::vector<u64> f(static_cast<size_t>(layout.field_count));
  for (int i = 0; i < layout.field_count; ++i) f[static_cast<size_t>(i)] = random_field(rng, layout, i);
  return f;
}

int sign_of_lexicographic(const std::vector<u64>& a, const std::vector<u64>& b) {
  if (std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end())) return -1;
  if (std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end())) return 1;
  return 0;
}

// Layouts exercised by the property tests: one field, several, full 64 bits,
// a 1-bit leading field (the top bit of the word), the maximum field count,
// and layouts that leave the high bits of the word unused.
std::vector<KeyLayout> test_layouts() {
  return {
      KeyLayout{64},
      KeyLayout{32, 32},
      KeyLayout{1, 63},
      KeyLayout{63, 1},
      KeyLayout{16, 20, 8},
      KeyLayout{4, 60},
      KeyLayout{20, 4, 32, 8},
      KeyLayout{8, 8, 8, 8, 8, 8},
      KeyLayout{10, 10, 10, 10, 10, 14},
      KeyLayout{12},
      KeyLayout{3, 5, 7},
  };
}

TEST(KeyLayout, DefaultIsEmpty) {
  constexpr KeyLayout layout;
  EXPECT_EQ(layout.field_count, 0);
  EXPECT_EQ(layout.total_bits(), 0);
  EXPECT_EQ(layout.pack({}), 0u);
  EXPECT_THROW(layout.pack({1}), std::invalid_argument);
}

TEST(KeyLayout, WidthsAndShiftsMostSignificantFirst) {
  constexpr KeyLayout layout{16, 20, 8};
  static_assert(layout.field_count == 3);
  static_assert(layout.total_bits() == 44);
  EXPECT_EQ(layout.bits[0], 16);
  EXPECT_EQ(layout.bits[1], 20);
  EXPECT_EQ(layout.bits[2], 8);
  EXPECT_EQ(layout.shift[0], 28);
  EXPECT_EQ(layout.shift[1], 8);
  EXPECT_EQ(layout.shift[2], 0);
  EXPECT_EQ(layout.mask(0), 0xFFFFu);
  EXPECT_EQ(layout.mask(1), 0xFFFFFu);
  EXPECT_EQ(layout.mask(2), 0xFFu);

  constexpr KeyLayout full{64};
  static_assert(full.total_bits() == 64);
  EXPECT_EQ(full.shift[0], 0);
  EXPECT_EQ(full.mask(0), ~u64{0});

  constexpr KeyLayout six{8, 8, 8, 8, 8, 8};
  static_assert(six.field_count == KeyLayout::kMaxFields);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(six.shift[i], 40 - 8 * i) << "field " << i;
}

TEST(KeyLayout, PackPlacesFieldsAtTheirShifts) {
  constexpr KeyLayout layout{16, 20, 8};
  EXPECT_EQ(layout.pack({0x1234, 0xABCDE, 0x56}), (u64{0x1234} << 28) | (u64{0xABCDE} << 8) | u64{0x56});
  EXPECT_EQ(layout.pack({0, 0, 0}), 0u);
  EXPECT_EQ(layout.pack({0xFFFF, 0xFFFFF, 0xFF}), (u64{1} << 44) - 1);

  constexpr KeyLayout full{32, 32};
  EXPECT_EQ(full.pack({0xFFFFFFFF, 0xFFFFFFFF}), ~u64{0});
  EXPECT_EQ(full.pack({1, 0}), u64{1} << 32);

  constexpr KeyLayout top{1, 63};
  EXPECT_EQ(top.pack({1, 0}), u64{1} << 63);
  EXPECT_EQ(top.field(u64{1} << 63, 0), 1u);
  EXPECT_EQ(top.field(u64{1} << 63, 1), 0u);
}

TEST(KeyLayout, PackFieldRoundTrip) {
  Random rng(42);
  for (const KeyLayout& layout : test_layouts()) {
    for (int iter = 0; iter < 5000; ++iter) {
      const std::vector<u64> f = random_fields(rng, layout);
      const PackedKey key = pack_vec(layout, f);
      for (int i = 0; i < layout.field_count; ++i)
        ASSERT_EQ(layout.field(key, i), f[static_cast<size_t>(i)])
            << "layout with " << layout.field_count << " fields, field " << i;
      // Nothing outside the layout's bits is set.
      if (layout.total_bits() < 64) { ASSERT_EQ(key >> layout.total_bits(), 0u); }
    }
  }
}

TEST(KeyLayout, PackAcceptsMaximumOfEveryField) {
  for (const KeyLayout& layout : test_layouts()) {
    std::vector<u64> f(static_cast<size_t>(layout.field_count));
    for (int i = 0; i < layout.field_count; ++i) f[static_cast<size_t>(i)] = max_of(layout, i);
    PackedKey key = 0;
    ASSERT_NO_THROW(key = pack_vec(layout, f));
    for (int i = 0; i < layout.field_count; ++i) EXPECT_EQ(layout.field(key, i), max_of(layout, i));
    if (layout.total_bits() == 64) { EXPECT_EQ(key, ~u64{0}); }
  }
}

TEST(KeyLayout, PackThrowsWhenAFieldIsTooWide) {
  for (const KeyLayout& layout : test_layouts()) {
    for (int i = 0; i < layout.field_count; ++i) {
      if (layout.bits[i] == 64) continue;  // every u64 fits
      std::vector<u64> f(static_cast<size_t>(layout.field_count), 0);
      f[static_cast<size_t>(i)] = max_of(layout, i) + 1;
      EXPECT_THROW(pack_vec(layout, f), std::out_of_range) << "field " << i << " of " << layout.field_count;
      f[static_cast<size_t>(i)] = ~u64{0};
      EXPECT_THROW(pack_vec(layout, f), std::out_of_range) << "field " << i << " of " << layout.field_count;
    }
  }
  constexpr KeyLayout layout{16, 20, 8};
  EXPECT_THROW(layout.pack({0x10000, 0, 0}), std::out_of_range);
  EXPECT_THROW(layout.pack({0, 0x100000, 0}), std::out_of_range);
  EXPECT_THROW(layout.pack({0, 0, 0x100}), std::out_of_range);
  EXPECT_NO_THROW(layout.pack({0xFFFF, 0xFFFFF, 0xFF}));
}

TEST(KeyLayout, PackThrowsOnWrongFieldCount) {
  constexpr KeyLayout layout{16, 20, 8};
  EXPECT_THROW(layout.pack({}), std::invalid_argument);
  EXPECT_THROW(layout.pack({1}), std::invalid_argument);
  EXPECT_THROW(layout.pack({1, 2}), std::invalid_argument);
  EXPECT_THROW(layout.pack({1, 2, 3, 4}), std::invalid_argument);
  EXPECT_NO_THROW(layout.pack({1, 2, 3}));

  for (const KeyLayout& l : test_layouts()) {
    std::vector<u64> fewer(static_cast<size_t>(l.field_count - 1), 0);
    std::vector<u64> more(static_cast<size_t>(l.field_count + 1), 0);
    EXPECT_THROW(pack_vec(l, fewer), std::invalid_argument);
    EXPECT_THROW(pack_vec(l, more), std::invalid_argument);
  }
}

template <class Compare>
class KeyCompareTest : public ::testing::Test {};

using ComparePolicies = ::testing::Types<GenericKeyCompare, IntegerKeyCompare>;

class ComparePolicyNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::kName;
  }
};
TYPED_TEST_SUITE(KeyCompareTest, ComparePolicies, ComparePolicyNames);

TYPED_TEST(KeyCompareTest, SameOrderAsStdTuple) {
  using C = TypeParam;
  constexpr KeyLayout layout{16, 20, 8};
  Random rng(7);
  for (int iter = 0; iter < 200000; ++iter) {
    // Small values so that leading fields are often equal.
    const u64 a0 = static_cast<u64>(rng.uniform(0, 3)), a1 = static_cast<u64>(rng.uniform(0, 3)),
              a2 = static_cast<u64>(rng.uniform(0, 3));
    u64 b0 = static_cast<u64>(rng.uniform(0, 3)), b1 = static_cast<u64>(rng.uniform(0, 3)),
        b2 = static_cast<u64>(rng.uniform(0, 3));
    if (iter % 7 == 0) {  // extremes of each field
      b0 = rng.uniform(0, 1) ? 0xFFFF : b0;
      b1 = rng.uniform(0, 1) ? 0xFFFFF : b1;
      b2 = rng.uniform(0, 1) ? 0xFF : b2;
    }
    const auto ta = std::make_tuple(a0, a1, a2), tb = std::make_tuple(b0, b1, b2);
    const PackedKey ka = layout.pack({a0, a1, a2}), kb = layout.pack({b0, b1, b2});
    const int expect = ta < tb ? -1 : (tb < ta ? 1 : 0);
    ASSERT_EQ(C::compare(layout, ka, kb), expect) << a0 << "," << a1 << "," << a2 << " vs " << b0 << "," << b1
                                                  << "," << b2;
    ASSERT_EQ(C::less(layout, ka, kb), ta < tb);
    ASSERT_EQ(C::less(layout, kb, ka), tb < ta);
  }
}

TYPED_TEST(KeyCompareTest, SameOrderAsLexicographicOnAllLayouts) {
  using C = TypeParam;
  Random rng(1234);
  for (const KeyLayout& layout : test_layouts()) {
    for (int iter = 0; iter < 20000; ++iter) {
      const std::vector<u64> a = random_fields(rng, layout);
      std::vector<u64> b = random_fields(rng, layout);
      if (iter % 5 == 0) b = a;  // equal keys
      if (iter % 5 == 1) {       // equal prefix, differ afterwards
        const size_t p = static_cast<size_t>(rng.uniform(0, layout.field_count - 1));
        for (size_t i = 0; i < p; ++i) b[i] = a[i];
      }
      const PackedKey ka = pack_vec(layout, a), kb = pack_vec(layout, b);
      const int expect = sign_of_lexicographic(a, b);
      ASSERT_EQ(C::compare(layout, ka, kb), expect);
      ASSERT_EQ(C::compare(layout, kb, ka), -expect);
      ASSERT_EQ(C::less(layout, ka, kb), expect < 0);
      ASSERT_EQ(C::less(layout, kb, ka), expect > 0);
    }
  }
}

TYPED_TEST(KeyCompareTest, SortMatchesTupleSort) {
  using C = TypeParam;
  constexpr KeyLayout layout{20, 4, 32, 8};
  Random rng(99);
  std::vector<std::vector<u64>> tuples;
  for (int i = 0; i < 20000; ++i) tuples.push_back(random_fields(rng, layout));
  std::vector<PackedKey> keys;
  for (const auto& t : tuples) keys.push_back(pack_vec(layout, t));

  std::sort(tuples.begin(), tuples.end());
  std::sort(keys.begin(), keys.end(), [&](PackedKey a, PackedKey b) { return C::less(layout, a, b); });
  ASSERT_EQ(keys.size(), tuples.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    for (int f = 0; f < layout.field_count; ++f)
      ASSERT_EQ(layout.field(keys[i], f), tuples[i][static_cast<size_t>(f)]) << "position " << i;
  }
}

TYPED_TEST(KeyCompareTest, TopBitIsUnsigned) {
  using C = TypeParam;
  constexpr KeyLayout full{64};
  const PackedKey small = 1, big = u64{1} << 63, max = ~u64{0};
  EXPECT_TRUE(C::less(full, small, big));
  EXPECT_TRUE(C::less(full, big, max));
  EXPECT_FALSE(C::less(full, max, big));
  EXPECT_EQ(C::compare(full, big, small), 1);
  EXPECT_EQ(C::compare(full, max, max), 0);
  EXPECT_EQ(C::compare(full, 0, max), -1);

  constexpr KeyLayout split{1, 63};
  EXPECT_TRUE(C::less(split, split.pack({0, (u64{1} << 63) - 1}), split.pack({1, 0})));
  EXPECT_EQ(C::compare(split, split.pack({1, 5}), split.pack({1, 5})), 0);
}

TYPED_TEST(KeyCompareTest, CompareIsAntisymmetricAndReturnsUnitSign) {
  using C = TypeParam;
  constexpr KeyLayout layout{8, 8, 8, 8, 8, 8};
  Random rng(5);
  for (int iter = 0; iter < 20000; ++iter) {
    const PackedKey a = pack_vec(layout, random_fields(rng, layout));
    const PackedKey b = pack_vec(layout, random_fields(rng, layout));
    const int c = C::compare(layout, a, b);
    ASSERT_TRUE(c == -1 || c == 0 || c == 1);
    ASSERT_EQ(C::compare(layout, b, a), -c);
    ASSERT_EQ(c == 0, a == b);
  }
}

TEST(KeyCompare, PoliciesAgreeOnRandomCompositeKeys) {
  Random rng(2024);
  for (const KeyLayout& layout : test_layouts()) {
    for (int iter = 0; iter < 20000; ++iter) {
      const PackedKey a = pack_vec(layout, random_fields(rng, layout));
      const PackedKey b = pack_vec(layout, random_fields(rng, layout));
      ASSERT_EQ(GenericKeyCompare::compare(layout, a, b), IntegerKeyCompare::compare(layout, a, b));
      ASSERT_EQ(GenericKeyCompare::less(layout, a, b), IntegerKeyCompare::less(layout, a, b));
    }
  }
}

TEST(KeyCompare, PolicyNames) {
  EXPECT_STREQ(GenericKeyCompare::kName, "generic");
  EXPECT_STREQ(IntegerKeyCompare::kName, "integer");
}

}  // namespace
}  // namespace dbrepro
