// Tests of the B+tree against std::map as the model, for both key comparison
// policies and a small page size (many splits, height >= 3) and the default
// page size. A structural checker walks the pages and verifies the B+tree
// invariants (sorted nodes, separator bounds, uniform leaf depth, leaf chain).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "btree/btree.hpp"
#include "btree/invariants.hpp"
#include "btree/bulk_load.hpp"
#include "btree/key.hpp"
#include "btree/node.hpp"
#include "common/random.hpp"
#include "storage/page_store.hpp"

namespace dbrepro {
namespace {

using Model = std::map<u64, u64>;

// ---------------------------------------------------------------------------
// Structural checker: the engine's one (btree/invariants.hpp, also the fuzz
// target's). Test keys are always produced by KeyLayout::pack, so their u64
// order is the tuple order (checked in test_key.cpp).

template <class Tree, class Pages>
::testing::AssertionResult check_structure(Tree& tree, Pages& pages, TreeShape* out = nullptr) {
  BTreeInvariants<Tree, Pages> invariants(tree, pages);
  const std::string error = invariants.check();
  if (!error.empty()) return ::testing::AssertionFailure() << error;
  if (out) *out = invariants.shape();
  return ::testing::AssertionSuccess();
}

template <class Tree>
::testing::AssertionResult scan_equals(Tree& tree, const Model& model) {
  auto it = model.begin();
  u64 n = 0;
  for (auto c = tree.begin(); c.valid(); c.next(), ++it, ++n) {
    if (it == model.end()) return ::testing::AssertionFailure() << "cursor has extra entry " << c.key() << " at " << n;
    if (c.key() != it->first || c.value() != it->second)
      return ::testing::AssertionFailure() << "at " << n << ": cursor (" << c.key() << "," << c.value()
                                           << ") model (" << it->first << "," << it->second << ")";
  }
  if (it != model.end()) return ::testing::AssertionFailure() << "cursor ended early at " << n << " of " << model.size();
  if (tree.size() != model.size())
    return ::testing::AssertionFailure() << "size() " << tree.size() << " model " << model.size();
  return ::testing::AssertionSuccess();
}

// Up to limit entries from seek(from) equal model.lower_bound(from) onwards.
template <class Tree>
::testing::AssertionResult range_equals(Tree& tree, const Model& model, u64 from, size_t limit) {
  auto it = model.lower_bound(from);
  auto c = tree.seek(from);
  for (size_t n = 0; n < limit; ++n, ++it, c.next()) {
    if (it == model.end()) {
      if (c.valid())
        return ::testing::AssertionFailure() << "seek(" << from << "): cursor has extra entry " << c.key();
      return ::testing::AssertionSuccess();
    }
    if (!c.valid())
      return ::testing::AssertionFailure() << "seek(" << from << "): cursor ended, model has " << it->first;
    if (c.key() != it->first || c.value() != it->second)
      return ::testing::AssertionFailure() << "seek(" << from << ") step " << n << ": cursor (" << c.key() << ","
                                           << c.value() << ") model (" << it->first << "," << it->second << ")";
  }
  return ::testing::AssertionSuccess();
}

// Height bounds for a tree built by inserts only: every split leaves at least
// floor(cap/2) entries in a leaf and cap - cap/2 children in an inner node;
// a node holds at most cap entries (cap + 1 children).
void expect_height_within_bounds(int height, u64 n, u32 cap) {
  double max_entries = cap;
  for (int h = 1; h < height; ++h) max_entries *= cap + 1;
  EXPECT_LE(static_cast<double>(n), max_entries) << "height " << height << " too low for " << n << " entries";
  if (height >= 2) {
    double min_entries = 2.0 * (cap / 2);
    for (int h = 2; h < height; ++h) min_entries *= cap - cap / 2;
    EXPECT_GE(static_cast<double>(n), min_entries) << "height " << height << " too high for " << n << " entries";
  }
}

void shuffle(std::vector<u64>& v, Random& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(rng.uniform(0, static_cast<i64>(i) - 1))]);
}

// ---------------------------------------------------------------------------
// Typed tests over {GenericKeyCompare, IntegerKeyCompare} x {1024, 8192}.

template <class KC, u32 PS>
struct Config {
  using Compare = KC;
  static constexpr u32 kPageSize = PS;
};

using Configs = ::testing::Types<Config<GenericKeyCompare, 1024>, Config<IntegerKeyCompare, 1024>,
                                 Config<GenericKeyCompare, 8192>, Config<IntegerKeyCompare, 8192>>;

class ConfigNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::string(T::Compare::kName) + "_" + std::to_string(T::kPageSize);
  }
};

template <class Cfg>
class BTreeTest : public ::testing::Test {
 protected:
  using Tree = BTree<typename Cfg::Compare, PageStore>;
  static constexpr u32 kPageSize = Cfg::kPageSize;
  // A three-field key (warehouse, id, line)-like layout with unused high bits.
  static constexpr KeyLayout kLayout{8, 24, 8};

  static u64 key(u64 a, u64 b, u64 c) { return kLayout.pack({a, b, c}); }
  // Composite key from a dense index: ascending index gives ascending key.
  static u64 key_of(u64 i) { return key(i / (1u << 20) % 256, (i / 4) % (1u << 18), i % 4); }

  PageStore pages{kPageSize};
  Tree tree{pages, kLayout};
  Model model;

  void insert_both(u64 k, u64 v) {
    const bool expect = model.emplace(k, v).second;
    ASSERT_EQ(tree.insert(k, v), expect) << "insert " << k;
  }
};

TYPED_TEST_SUITE(BTreeTest, Configs, ConfigNames);

TYPED_TEST(BTreeTest, EmptyTree) {
  auto& tree = this->tree;
  EXPECT_EQ(tree.size(), 0u);
  EXPECT_EQ(tree.height(), 1);
  EXPECT_FALSE(tree.begin().valid());
  EXPECT_FALSE(tree.seek(0).valid());
  EXPECT_FALSE(tree.seek(this->key(3, 4, 5)).valid());
  u64 v = 12345;
  EXPECT_FALSE(tree.lookup(this->key(1, 1, 1), &v));
  EXPECT_EQ(v, 12345u);
  EXPECT_FALSE(tree.lookup(0, nullptr));
  EXPECT_FALSE(tree.erase(0));
  EXPECT_FALSE(tree.update(0, 1));
  EXPECT_EQ(tree.size(), 0u);
  EXPECT_TRUE(check_structure(tree, this->pages));
}

TYPED_TEST(BTreeTest, NodeCapacityFitsThePage) {
  const u32 cap = this->tree.node_capacity();
  EXPECT_EQ(cap, Node::capacity_for(TestFixture::kPageSize));
  // A slotted page: the header, then per entry a 2-byte slot and a 16-byte
  // record (key, value; an inner node's first child is in the header).
  EXPECT_LE(Node::heap_end_for(cap), TestFixture::kPageSize);
  EXPECT_LE(sizeof(NodeHeader) + cap * (sizeof(u16) + sizeof(PackedKey) + sizeof(u64)), Node::heap_end_for(cap));
  EXPECT_GT(sizeof(NodeHeader) + (cap + 1) * (sizeof(u16) + sizeof(PackedKey) + sizeof(u64)), TestFixture::kPageSize);
  if (TestFixture::kPageSize == 1024) { EXPECT_EQ(cap, 55u); }
  if (TestFixture::kPageSize == 8192) { EXPECT_EQ(cap, 453u); }
  EXPECT_EQ(this->tree.layout().total_bits(), 40);
}

TYPED_TEST(BTreeTest, RandomOperationsMatchStdMap) {
  auto& tree = this->tree;
  auto& model = this->model;
  Random rng(TestFixture::kPageSize * 31 + (std::string(TypeParam::Compare::kName) == "generic" ? 1 : 2));
  // 6 x 2500 x 4 = 60000 distinct keys: enough for thousands of splits on
  // 1 KB pages, small enough that inserts collide with present keys.
  auto random_key = [&] {
    return TestFixture::key(static_cast<u64>(rng.uniform(0, 5)), static_cast<u64>(rng.uniform(0, 2499)),
                            static_cast<u64>(rng.uniform(0, 3)));
  };
  constexpr int kOps = 200000;
  int max_height = tree.height();
  int prev_height = tree.height();
  u64 inserts_ok = 0, inserts_dup = 0, erases_ok = 0, erases_missing = 0, empty_leaf_checks = 0;
  for (int op = 0; op < kOps; ++op) {
    // Phase A grows the tree, phase B shrinks it (emptying leaves), phase C mixes.
    int insert_pct, erase_pct;
    if (op < 80000) {
      insert_pct = 60, erase_pct = 10;
    } else if (op < 140000) {
      insert_pct = 10, erase_pct = 60;
    } else {
      insert_pct = 35, erase_pct = 35;
    }
    const int dice = static_cast<int>(rng.uniform(0, 99));
    const u64 k = random_key();
    if (dice < insert_pct) {
      const u64 v = rng.next();
      const bool expect = model.emplace(k, v).second;
      ASSERT_EQ(tree.insert(k, v), expect) << "op " << op << " insert " << k;
      (expect ? inserts_ok : inserts_dup)++;
    } else if (dice < insert_pct + erase_pct) {
      if (rng.uniform(0, 49) == 0) {
        // Erase a run of consecutive present keys: empties whole leaves.
        auto it = model.lower_bound(k);
        const int run = static_cast<int>(rng.uniform(1, 400));
        for (int i = 0; i < run && it != model.end(); ++i) {
          ASSERT_TRUE(tree.erase(it->first)) << "op " << op << " run erase " << it->first;
          ASSERT_FALSE(tree.erase(it->first)) << "op " << op << " second erase " << it->first;
          it = model.erase(it);
          ++erases_ok;
        }
      } else {
        const bool expect = model.erase(k) == 1;
        ASSERT_EQ(tree.erase(k), expect) << "op " << op << " erase " << k;
        (expect ? erases_ok : erases_missing)++;
      }
    } else if (dice < insert_pct + erase_pct + 12) {
      const u64 v = rng.next();
      auto it = model.find(k);
      const bool expect = it != model.end();
      if (expect) it->second = v;
      ASSERT_EQ(tree.update(k, v), expect) << "op " << op << " update " << k;
    } else if (dice < insert_pct + erase_pct + 24) {
      u64 v = 0xDEADBEEF;
      auto it = model.find(k);
      const bool found = tree.lookup(k, &v);
      ASSERT_EQ(found, it != model.end()) << "op " << op << " lookup " << k;
      if (found) {
        ASSERT_EQ(v, it->second) << "op " << op << " lookup " << k;
      } else {
        ASSERT_EQ(v, 0xDEADBEEFu) << "op " << op << " failed lookup wrote the value";
      }
      ASSERT_EQ(tree.lookup(k, nullptr), found);
    } else {
      ASSERT_TRUE(range_equals(tree, model, k, static_cast<size_t>(rng.uniform(1, 60)))) << "op " << op;
    }
    ASSERT_EQ(tree.size(), model.size()) << "op " << op;
    ASSERT_GE(tree.height(), prev_height) << "op " << op << ": height shrank";
    ASSERT_LE(tree.height(), prev_height + 1) << "op " << op << ": height grew by more than one";
    prev_height = tree.height();
    max_height = std::max(max_height, tree.height());

    if (op % 5000 == 4999 || op == kOps - 1) {
      ASSERT_TRUE(scan_equals(tree, model)) << "op " << op;
      TreeShape shape;
      ASSERT_TRUE(check_structure(tree, this->pages, &shape)) << "op " << op;
      if (shape.empty_leaves > 0) ++empty_leaf_checks;
    }
  }
  // The sequence did what it was meant to.
  EXPECT_GT(inserts_ok, 30000u);
  EXPECT_GT(inserts_dup, 2000u);
  EXPECT_GT(erases_ok, 20000u);
  EXPECT_GT(erases_missing, 5000u);
  EXPECT_GT(empty_leaf_checks, 0u) << "no checkpoint saw an emptied leaf";
  if (TestFixture::kPageSize == 1024) {
    EXPECT_GE(max_height, 3);
  } else {
    EXPECT_GE(max_height, 2);
  }
}

TYPED_TEST(BTreeTest, RangeScansFromRandomSeekPoints) {
  auto& tree = this->tree;
  Random rng(17);
  for (int i = 0; i < 50000; ++i) {
    const u64 k = TestFixture::key(static_cast<u64>(rng.uniform(0, 9)), static_cast<u64>(rng.uniform(0, 99999)),
                                   static_cast<u64>(rng.uniform(0, 255)));
    this->insert_both(k, rng.next());
  }
  ASSERT_TRUE(scan_equals(tree, this->model));
  for (int i = 0; i < 3000; ++i) {
    u64 from;
    switch (i % 4) {
      case 0: {  // a present key
        auto it = this->model.lower_bound(TestFixture::key(static_cast<u64>(rng.uniform(0, 9)), 0, 0));
        from = it == this->model.end() ? 0 : it->first;
        break;
      }
      case 1: from = 0; break;
      default:
        from = TestFixture::key(static_cast<u64>(rng.uniform(0, 10)), static_cast<u64>(rng.uniform(0, 100000)),
                                static_cast<u64>(rng.uniform(0, 255)));
    }
    ASSERT_TRUE(range_equals(tree, this->model, from, static_cast<size_t>(rng.uniform(1, 1500))));
  }
  // Past the largest key.
  EXPECT_FALSE(tree.seek(this->model.rbegin()->first + 1).valid());
  EXPECT_FALSE(tree.seek(TestFixture::key(255, (1u << 24) - 1, 255)).valid());
  // Exactly at the smallest and largest keys.
  EXPECT_EQ(tree.seek(this->model.begin()->first).key(), this->model.begin()->first);
  auto last = tree.seek(this->model.rbegin()->first);
  ASSERT_TRUE(last.valid());
  EXPECT_EQ(last.key(), this->model.rbegin()->first);
  last.next();
  EXPECT_FALSE(last.valid());
}

TYPED_TEST(BTreeTest, SequentialAscendingInsert) {
  auto& tree = this->tree;
  const u32 cap = tree.node_capacity();
  constexpr u64 kN = 200000;
  int prev_height = 1;
  for (u64 i = 0; i < kN; ++i) {
    ASSERT_TRUE(tree.insert(TestFixture::key_of(i), i * 3 + 1)) << i;
    this->model.emplace(TestFixture::key_of(i), i * 3 + 1);
    const u64 n = i + 1;
    if (n <= cap) { ASSERT_EQ(tree.height(), 1) << n; }
    if (n == cap + 1) { ASSERT_EQ(tree.height(), 2) << "the first split must add a level"; }
    ASSERT_GE(tree.height(), prev_height);
    ASSERT_LE(tree.height(), prev_height + 1);
    prev_height = tree.height();
    if (n % 9973 == 0) expect_height_within_bounds(tree.height(), n, cap);
  }
  expect_height_within_bounds(tree.height(), kN, cap);
  EXPECT_EQ(tree.size(), kN);
  if (TestFixture::kPageSize == 1024) { EXPECT_GE(tree.height(), 4); }
  if (TestFixture::kPageSize == 8192) { EXPECT_GE(tree.height(), 3); }
  TreeShape shape;
  ASSERT_TRUE(check_structure(tree, this->pages, &shape));
  EXPECT_EQ(shape.empty_leaves, 0u);
  ASSERT_TRUE(scan_equals(tree, this->model));
  for (u64 i = 0; i < kN; i += 7) {
    u64 v = 0;
    ASSERT_TRUE(tree.lookup(TestFixture::key_of(i), &v)) << i;
    ASSERT_EQ(v, i * 3 + 1);
  }
}

TYPED_TEST(BTreeTest, SequentialDescendingInsert) {
  auto& tree = this->tree;
  const u32 cap = tree.node_capacity();
  constexpr u64 kN = 200000;
  int prev_height = 1;
  for (u64 n = 1; n <= kN; ++n) {
    const u64 i = kN - n;
    ASSERT_TRUE(tree.insert(TestFixture::key_of(i), i ^ 0x5555)) << i;
    this->model.emplace(TestFixture::key_of(i), i ^ 0x5555);
    if (n <= cap) { ASSERT_EQ(tree.height(), 1) << n; }
    if (n == cap + 1) { ASSERT_EQ(tree.height(), 2) << "the first split must add a level"; }
    ASSERT_GE(tree.height(), prev_height);
    ASSERT_LE(tree.height(), prev_height + 1);
    prev_height = tree.height();
    if (n % 9973 == 0) expect_height_within_bounds(tree.height(), n, cap);
    if (n % 20000 == 0) { ASSERT_TRUE(range_equals(tree, this->model, 0, 100)) << n; }
  }
  expect_height_within_bounds(tree.height(), kN, cap);
  if (TestFixture::kPageSize == 1024) { EXPECT_GE(tree.height(), 4); }
  TreeShape shape;
  ASSERT_TRUE(check_structure(tree, this->pages, &shape));
  EXPECT_EQ(shape.empty_leaves, 0u);
  ASSERT_TRUE(scan_equals(tree, this->model));
}

TYPED_TEST(BTreeTest, RandomInsertHeightWithinBounds) {
  auto& tree = this->tree;
  Random rng(99);
  const u32 cap = tree.node_capacity();
  for (u64 n = 1; n <= 100000; ++n) {
    u64 k;
    do {
      k = TestFixture::key(static_cast<u64>(rng.uniform(0, 255)), static_cast<u64>(rng.uniform(0, (1 << 24) - 1)),
                           static_cast<u64>(rng.uniform(0, 255)));
    } while (!this->model.emplace(k, n).second);
    ASSERT_TRUE(tree.insert(k, n));
    if (n <= cap) { ASSERT_EQ(tree.height(), 1); }
    if (n == cap + 1) { ASSERT_EQ(tree.height(), 2); }
    if (n % 5000 == 0) expect_height_within_bounds(tree.height(), n, cap);
  }
  ASSERT_TRUE(check_structure(tree, this->pages));
  ASSERT_TRUE(scan_equals(tree, this->model));
}

TYPED_TEST(BTreeTest, DeleteEverythingThenReinsert) {
  auto& tree = this->tree;
  Random rng(4242);
  std::vector<u64> keys;
  while (keys.size() < 30000) {
    const u64 k = TestFixture::key(static_cast<u64>(rng.uniform(0, 3)), static_cast<u64>(rng.uniform(0, 999999)),
                                   static_cast<u64>(rng.uniform(0, 3)));
    if (this->model.emplace(k, keys.size()).second) {
      ASSERT_TRUE(tree.insert(k, keys.size()));
      keys.push_back(k);
    }
  }
  ASSERT_TRUE(scan_equals(tree, this->model));
  const int height = tree.height();
  const size_t page_count = this->pages.page_count();
  if (TestFixture::kPageSize == 1024) { EXPECT_GE(height, 3); }

  shuffle(keys, rng);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(tree.erase(keys[i])) << i;
    this->model.erase(keys[i]);
    ASSERT_EQ(tree.size(), keys.size() - i - 1);
    if (i % 3000 == 0) {
      ASSERT_TRUE(scan_equals(tree, this->model)) << i;
      ASSERT_TRUE(range_equals(tree, this->model, keys[i], 200)) << i;
    }
  }
  EXPECT_EQ(tree.size(), 0u);
  EXPECT_EQ(tree.height(), height) << "deletes do not shrink the tree";
  EXPECT_FALSE(tree.begin().valid());
  for (size_t i = 0; i < keys.size(); i += 97) {
    EXPECT_FALSE(tree.seek(keys[i]).valid());
    EXPECT_FALSE(tree.lookup(keys[i], nullptr));
    EXPECT_FALSE(tree.erase(keys[i]));
    EXPECT_FALSE(tree.update(keys[i], 1));
  }
  TreeShape shape;
  ASSERT_TRUE(check_structure(tree, this->pages, &shape));
  EXPECT_EQ(shape.empty_leaves, shape.leaves.size());

  // Reinsert the same keys in another order with new values: every key goes
  // back to the leaf it left, so no page is allocated.
  shuffle(keys, rng);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(tree.insert(keys[i], ~static_cast<u64>(i))) << i;
    this->model[keys[i]] = ~static_cast<u64>(i);
    ASSERT_EQ(tree.size(), i + 1);
  }
  EXPECT_EQ(this->pages.page_count(), page_count) << "reinserting the deleted keys split nodes";
  EXPECT_EQ(tree.height(), height);
  ASSERT_TRUE(check_structure(tree, this->pages));
  ASSERT_TRUE(scan_equals(tree, this->model));
  for (size_t i = 0; i < keys.size(); i += 13) {
    u64 v = 0;
    ASSERT_TRUE(tree.lookup(keys[i], &v));
    ASSERT_EQ(v, ~static_cast<u64>(i));
  }

  // And once more: delete all, then insert new keys (which split again).
  for (u64 k : keys) ASSERT_TRUE(tree.erase(k));
  this->model.clear();
  EXPECT_EQ(tree.size(), 0u);
  for (u64 i = 0; i < 60000; ++i) this->insert_both(TestFixture::key_of(i * 5), i);
  ASSERT_TRUE(check_structure(tree, this->pages));
  ASSERT_TRUE(scan_equals(tree, this->model));
}

TYPED_TEST(BTreeTest, DuplicateInsertReturnsFalseAndKeepsValue) {
  auto& tree = this->tree;
  for (u64 i = 0; i < 20000; ++i) this->insert_both(TestFixture::key_of(i * 2), i);
  const int height = tree.height();
  const size_t page_count = this->pages.page_count();
  for (u64 i = 0; i < 20000; ++i) {
    ASSERT_FALSE(tree.insert(TestFixture::key_of(i * 2), 999999)) << i;
    u64 v = 0;
    ASSERT_TRUE(tree.lookup(TestFixture::key_of(i * 2), &v));
    ASSERT_EQ(v, i) << "duplicate insert changed the value";
  }
  EXPECT_EQ(tree.size(), 20000u);
  EXPECT_EQ(tree.height(), height);
  EXPECT_EQ(this->pages.page_count(), page_count) << "duplicate inserts allocated pages";
  ASSERT_TRUE(scan_equals(tree, this->model));
  ASSERT_TRUE(check_structure(tree, this->pages));
  // A key that was erased can be inserted again.
  ASSERT_TRUE(tree.erase(TestFixture::key_of(100)));
  ASSERT_TRUE(tree.insert(TestFixture::key_of(100), 7));
  u64 v = 0;
  ASSERT_TRUE(tree.lookup(TestFixture::key_of(100), &v));
  EXPECT_EQ(v, 7u);
}

TYPED_TEST(BTreeTest, EraseAndUpdateOfMissingKeys) {
  auto& tree = this->tree;
  EXPECT_FALSE(tree.erase(TestFixture::key_of(0)));
  for (u64 i = 0; i < 20000; ++i) this->insert_both(TestFixture::key_of(i * 2), i);
  for (u64 i = 0; i < 20000; ++i) {
    ASSERT_FALSE(tree.erase(TestFixture::key_of(i * 2 + 1))) << i;
    ASSERT_FALSE(tree.update(TestFixture::key_of(i * 2 + 1), 5)) << i;
    ASSERT_FALSE(tree.lookup(TestFixture::key_of(i * 2 + 1), nullptr)) << "update inserted a key";
  }
  EXPECT_EQ(tree.size(), 20000u);
  // Beyond both ends.
  EXPECT_FALSE(tree.erase(TestFixture::key(255, 0, 0)));
  ASSERT_TRUE(scan_equals(tree, this->model));
  // Erase each present key twice: true, then false.
  for (u64 i = 0; i < 20000; i += 3) {
    ASSERT_TRUE(tree.erase(TestFixture::key_of(i * 2)));
    ASSERT_FALSE(tree.erase(TestFixture::key_of(i * 2)));
    this->model.erase(TestFixture::key_of(i * 2));
  }
  EXPECT_EQ(tree.size(), this->model.size());
  ASSERT_TRUE(scan_equals(tree, this->model));
  ASSERT_TRUE(check_structure(tree, this->pages));
}

TYPED_TEST(BTreeTest, UpdateChangesOnlyTheValue) {
  auto& tree = this->tree;
  for (u64 i = 0; i < 10000; ++i) this->insert_both(TestFixture::key_of(i), i);
  for (u64 i = 0; i < 10000; i += 2) {
    ASSERT_TRUE(tree.update(TestFixture::key_of(i), i + 1000000));
    this->model[TestFixture::key_of(i)] = i + 1000000;
  }
  EXPECT_EQ(tree.size(), 10000u);
  ASSERT_TRUE(scan_equals(tree, this->model));
}

TYPED_TEST(BTreeTest, CursorSkipsLeavesEmptiedByDeletes) {
  auto& tree = this->tree;
  constexpr u64 kN = 40000;
  for (u64 i = 0; i < kN; ++i) this->insert_both(TestFixture::key_of(i), i);
  // Empty a long middle stretch (whole leaves) and the first leaves.
  for (u64 i = 1000; i < 30000; ++i) {
    ASSERT_TRUE(tree.erase(TestFixture::key_of(i)));
    this->model.erase(TestFixture::key_of(i));
  }
  for (u64 i = 0; i < 700; ++i) {
    ASSERT_TRUE(tree.erase(TestFixture::key_of(i)));
    this->model.erase(TestFixture::key_of(i));
  }
  TreeShape shape;
  ASSERT_TRUE(check_structure(tree, this->pages, &shape));
  EXPECT_GT(shape.empty_leaves, 10u) << "the test did not empty leaves";

  auto c = tree.begin();
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.key(), TestFixture::key_of(700));
  EXPECT_EQ(c.value(), 700u);
  c = tree.seek(TestFixture::key_of(999));
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.key(), TestFixture::key_of(999));
  c.next();
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.key(), TestFixture::key_of(30000)) << "cursor did not skip the emptied leaves";
  for (u64 from : {u64{1000}, u64{5000}, u64{20000}, u64{29999}}) {
    auto s = tree.seek(TestFixture::key_of(from));
    ASSERT_TRUE(s.valid()) << from;
    EXPECT_EQ(s.key(), TestFixture::key_of(30000)) << "seek into emptied stretch at " << from;
    EXPECT_EQ(s.value(), 30000u);
  }
  c = tree.seek(0);
  EXPECT_EQ(c.key(), TestFixture::key_of(700));
  ASSERT_TRUE(scan_equals(tree, this->model));

  // Everything except the very last key: the cursor walks all empty leaves.
  for (u64 i = 0; i + 1 < kN; ++i) {
    if (this->model.erase(TestFixture::key_of(i))) { ASSERT_TRUE(tree.erase(TestFixture::key_of(i))); }
  }
  c = tree.begin();
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.key(), TestFixture::key_of(kN - 1));
  c.next();
  EXPECT_FALSE(c.valid());
  // Only the first key left (reinsert it; its leaf is the leftmost).
  ASSERT_TRUE(tree.erase(TestFixture::key_of(kN - 1)));
  ASSERT_TRUE(tree.insert(TestFixture::key_of(0), 42));
  c = tree.begin();
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.key(), TestFixture::key_of(0));
  EXPECT_EQ(c.value(), 42u);
  c.next();
  EXPECT_FALSE(c.valid()) << "cursor did not run off the end through empty leaves";
  EXPECT_FALSE(tree.seek(TestFixture::key_of(1)).valid());
}

TYPED_TEST(BTreeTest, TwoTreesShareAPageStore) {
  typename TestFixture::Tree other(this->pages, TestFixture::kLayout);
  Model other_model;
  Random rng(5);
  for (int i = 0; i < 40000; ++i) {
    const u64 k = TestFixture::key_of(static_cast<u64>(rng.uniform(0, 99999)));
    const u64 v = rng.next();
    if (i % 2) {
      this->insert_both(k, v);
    } else {
      ASSERT_EQ(other.insert(k, v), other_model.emplace(k, v).second);
    }
    if (i % 5 == 0) {
      const u64 e = TestFixture::key_of(static_cast<u64>(rng.uniform(0, 99999)));
      ASSERT_EQ(other.erase(e), other_model.erase(e) == 1);
    }
  }
  ASSERT_TRUE(scan_equals(this->tree, this->model));
  ASSERT_TRUE(scan_equals(other, other_model));
  ASSERT_TRUE(check_structure(this->tree, this->pages));
  ASSERT_TRUE(check_structure(other, this->pages));
}

// ---------------------------------------------------------------------------
// Full-width keys: the top bit of the word must order as unsigned, for every
// layout and policy.

template <class KC>
void full_width_keys(const KeyLayout& layout, u32 page_size, u64 seed) {
  PageStore pages(page_size);
  BTree<KC, PageStore> tree(pages, layout);
  Model model;
  Random rng(seed);
  for (int i = 0; i < 60000; ++i) {
    u64 k = rng.next();
    if (i % 3 == 0) k |= u64{1} << 63;
    if (i % 3 == 1) k &= ~(u64{1} << 63);
    if (i % 4 == 0 && !model.empty()) {
      // erase a present key
      auto it = model.lower_bound(k);
      if (it == model.end()) it = model.begin();
      ASSERT_TRUE(tree.erase(it->first));
      model.erase(it);
      continue;
    }
    ASSERT_EQ(tree.insert(k, i), model.emplace(k, i).second);
  }
  ASSERT_TRUE(tree.insert(~u64{0}, 1) == model.emplace(~u64{0}, 1).second);
  ASSERT_TRUE(tree.insert(0, 2) == model.emplace(0, 2).second);
  ASSERT_TRUE(scan_equals(tree, model));
  ASSERT_TRUE(check_structure(tree, pages));
  ASSERT_TRUE(range_equals(tree, model, u64{1} << 63, 5000));
  ASSERT_TRUE(range_equals(tree, model, (u64{1} << 63) - 1, 50));
  u64 v = 0;
  ASSERT_TRUE(tree.lookup(~u64{0}, &v));
}

TEST(BTreeFullWidthKeys, Generic64) { full_width_keys<GenericKeyCompare>(KeyLayout{64}, 1024, 1); }
TEST(BTreeFullWidthKeys, Generic1x63) { full_width_keys<GenericKeyCompare>(KeyLayout{1, 63}, 1024, 2); }
TEST(BTreeFullWidthKeys, Generic32x32) { full_width_keys<GenericKeyCompare>(KeyLayout{32, 32}, 8192, 3); }
TEST(BTreeFullWidthKeys, Generic6Fields) {
  full_width_keys<GenericKeyCompare>(KeyLayout{8, 8, 8, 8, 8, 24}, 1024, 4);
}
TEST(BTreeFullWidthKeys, Integer64) { full_width_keys<IntegerKeyCompare>(KeyLayout{64}, 1024, 5); }
TEST(BTreeFullWidthKeys, Integer32x32) { full_width_keys<IntegerKeyCompare>(KeyLayout{32, 32}, 8192, 6); }

// ---------------------------------------------------------------------------
// Fix/unfix balance and latch discipline. With a buffer pool behind the Pages
// interface every fix pins a page until its unfix; a B+tree operation must
// leave no page pinned, unfix each page with the address and mode it fixed it
// with, and never fix a page that the thread already holds in a conflicting
// mode (with real latches the thread would wait for itself forever).

class CountingPages {
 public:
  explicit CountingPages(u32 page_size) : store_(page_size) {}

  PageId allocate() {
    const PageId pid = store_.allocate();
    pins_.resize(store_.page_count());
    std::byte* page = store_.fix(pid, LatchMode::kShared);
    addresses_.resize(store_.page_count());
    addresses_[pid] = page;
    store_.unfix(pid, page, LatchMode::kShared);
    return pid;
  }
  std::byte* fix(PageId pid, LatchMode mode) {
    Pins& p = pins_.at(pid);
    const bool exclusive = mode == LatchMode::kExclusive;
    if (exclusive ? (p.shared > 0 || p.exclusive > 0) : p.exclusive > 0)
      error("page " + std::to_string(pid) + " fixed " + name(mode) + " while already held " +
            (p.exclusive > 0 ? "exclusive" : "shared"));
    ++(exclusive ? p.exclusive : p.shared);
    ++fixes_;
    if (exclusive) ++exclusive_fixes_;
    ++held_;
    max_held_ = std::max(max_held_, held_);
    return store_.fix(pid, mode);
  }
  void unfix(PageId pid, std::byte* page, LatchMode mode) {
    Pins& p = pins_.at(pid);
    long& count = mode == LatchMode::kExclusive ? p.exclusive : p.shared;
    if (page != addresses_.at(pid)) error("page " + std::to_string(pid) + " unfixed with the wrong address");
    if (count == 0) {
      error("page " + std::to_string(pid) + " unfixed " + name(mode) + " without a matching fix");
      return;
    }
    --count;
    --held_;
    store_.unfix(pid, page, mode);
  }
  u32 page_size() const { return store_.page_size(); }
  size_t page_count() const { return store_.page_count(); }

  long outstanding() const { return held_; }  // fixes not yet unfixed
  long max_held() const { return max_held_; }  // most pages held at once since mark()
  u64 fixes() const { return fixes_; }
  u64 exclusive_fixes() const { return exclusive_fixes_; }
  // Starts a new measurement window (does not forget outstanding fixes).
  void mark() {
    max_held_ = held_;
    fixes_ = exclusive_fixes_ = 0;
  }
  ::testing::AssertionResult clean() const {
    if (!errors_.empty()) return ::testing::AssertionFailure() << errors_.size() << " errors, first: " << errors_[0];
    if (held_ != 0) return ::testing::AssertionFailure() << held_ << " fixes without unfix";
    return ::testing::AssertionSuccess();
  }

 private:
  struct Pins {
    long shared = 0;
    long exclusive = 0;
  };
  static const char* name(LatchMode mode) { return mode == LatchMode::kExclusive ? "exclusive" : "shared"; }
  void error(const std::string& e) { errors_.push_back(e); }

  PageStore store_;
  std::vector<Pins> pins_;
  std::vector<std::byte*> addresses_;
  std::vector<std::string> errors_;
  long held_ = 0;
  long max_held_ = 0;
  u64 fixes_ = 0;
  u64 exclusive_fixes_ = 0;
};

using PinTree = BTree<IntegerKeyCompare, CountingPages>;
constexpr KeyLayout kPinLayout{32, 32};

TEST(PinBalance, CheckerCatchesMistakes) {
  // The checker itself: an unmatched unfix, a leftover fix, a self-conflicting fix.
  CountingPages pages(1024);
  const PageId a = pages.allocate();
  EXPECT_TRUE(pages.clean());
  std::byte* p = pages.fix(a, LatchMode::kShared);
  EXPECT_FALSE(pages.clean()) << "a leftover fix went unnoticed";
  pages.fix(a, LatchMode::kShared);  // two shared fixes of one page are fine
  pages.unfix(a, p, LatchMode::kShared);
  pages.unfix(a, p, LatchMode::kShared);
  EXPECT_TRUE(pages.clean());
  pages.fix(a, LatchMode::kShared);
  pages.fix(a, LatchMode::kExclusive);
  pages.unfix(a, p, LatchMode::kExclusive);
  pages.unfix(a, p, LatchMode::kShared);
  EXPECT_FALSE(pages.clean()) << "exclusive fix of a page held shared went unnoticed";
  CountingPages other(1024);
  const PageId b = other.allocate();
  std::byte* q = other.fix(b, LatchMode::kExclusive);
  other.unfix(b, q, LatchMode::kShared);
  EXPECT_FALSE(other.clean()) << "unfix in the wrong mode went unnoticed";
}

TEST(PinBalance, BTreeConstructor) {
  CountingPages pages(1024);
  PinTree tree(pages, kPinLayout);
  EXPECT_GT(pages.fixes(), 0u);
  EXPECT_TRUE(pages.clean()) << "the constructor leaves the root pinned";
}

TEST(PinBalance, BTreeOperationsOnARootLeaf) {
  CountingPages pages(1024);
  PinTree tree(pages, kPinLayout);
  ASSERT_TRUE(tree.insert(1, 1));
  EXPECT_TRUE(pages.clean()) << "insert (no split)";
  ASSERT_FALSE(tree.insert(1, 1));
  EXPECT_TRUE(pages.clean()) << "duplicate insert";
  pages.mark();
  ASSERT_TRUE(tree.lookup(1, nullptr));
  EXPECT_TRUE(pages.clean()) << "lookup";
  EXPECT_EQ(pages.max_held(), 1);
  EXPECT_EQ(pages.exclusive_fixes(), 0u) << "a lookup latches exclusively";
  ASSERT_FALSE(tree.lookup(2, nullptr));
  EXPECT_TRUE(pages.clean()) << "failed lookup";
  pages.mark();
  ASSERT_TRUE(tree.update(1, 2));
  EXPECT_TRUE(pages.clean()) << "update";
  EXPECT_EQ(pages.exclusive_fixes(), 1u) << "an update latches exactly the leaf exclusively";
  ASSERT_FALSE(tree.update(2, 2));
  EXPECT_TRUE(pages.clean()) << "update of a missing key";
  ASSERT_TRUE(tree.erase(1));
  EXPECT_TRUE(pages.clean()) << "erase";
  ASSERT_FALSE(tree.erase(1));
  EXPECT_TRUE(pages.clean()) << "erase of a missing key";
  EXPECT_FALSE(tree.begin().valid());
  EXPECT_TRUE(pages.clean()) << "cursor on an empty tree";
}

TEST(PinBalance, BTreeInsertWithSplits) {
  CountingPages pages(1024);
  PinTree tree(pages, kPinLayout);
  long worst_excess = 0;
  for (u64 i = 0; i < 20000; ++i) {
    pages.mark();
    ASSERT_TRUE(tree.insert(i * 7919 % 20011, i));
    ASSERT_TRUE(pages.clean()) << "insert " << i;
    // The latched path (at most one node per level) plus the new sibling.
    worst_excess = std::max(worst_excess, pages.max_held() - (tree.height() + 1));
  }
  EXPECT_GE(tree.height(), 3);
  EXPECT_LE(worst_excess, 0) << "an insert held more pages than its path and the new sibling";
  EXPECT_TRUE(check_structure(tree, pages));
  EXPECT_TRUE(pages.clean()) << "the structure check itself";
}

TEST(PinBalance, BTreeLatchCouplingOnATallTree) {
  CountingPages pages(1024);
  PinTree tree(pages, kPinLayout);
  for (u64 i = 0; i < 20000; ++i) ASSERT_TRUE(tree.insert(i * 2, i));
  const int height = tree.height();
  ASSERT_GE(height, 3);
  for (u64 i = 0; i < 2000; ++i) {
    const u64 k = i * 19 % 40000;
    pages.mark();
    tree.lookup(k, nullptr);
    ASSERT_TRUE(pages.clean()) << "lookup " << k;
    ASSERT_LE(pages.max_held(), 2) << "lookup " << k << ": shared coupling holds a parent and a child at most";
    ASSERT_EQ(pages.fixes(), static_cast<u64>(height)) << "lookup " << k << ": one fix per level";
    ASSERT_EQ(pages.exclusive_fixes(), 0u);
    pages.mark();
    tree.update(k, i);
    ASSERT_TRUE(pages.clean()) << "update " << k;
    ASSERT_LE(pages.max_held(), 2) << "update " << k;
    ASSERT_EQ(pages.fixes(), static_cast<u64>(height)) << "update " << k;
    ASSERT_EQ(pages.exclusive_fixes(), 1u) << "update " << k << ": only the leaf exclusively";
  }
  for (u64 i = 0; i < 20000; i += 3) {
    pages.mark();
    ASSERT_TRUE(tree.erase(i * 2));
    ASSERT_TRUE(pages.clean()) << "erase " << i * 2;
    ASSERT_LE(pages.max_held(), 2);
    ASSERT_EQ(pages.exclusive_fixes(), 1u);
  }
  EXPECT_TRUE(check_structure(tree, pages));
  EXPECT_TRUE(pages.clean());
}

TEST(PinBalance, BTreeSeekAndScan) {
  CountingPages pages(1024);
  PinTree tree(pages, kPinLayout);
  for (u64 i = 0; i < 5000; ++i) tree.insert(i, i);
  pages.mark();
  u64 n = 0;
  for (auto c = tree.begin(); c.valid(); c.next()) {
    (void)c.key();
    (void)c.value();
    ++n;
    ASSERT_EQ(pages.outstanding(), 1) << "a cursor holds exactly its current leaf";
  }
  EXPECT_EQ(n, 5000u);
  EXPECT_TRUE(pages.clean()) << "a full scan left pages pinned";
  EXPECT_LE(pages.max_held(), 2) << "moving to the next leaf holds two leaves at most";
  EXPECT_EQ(pages.exclusive_fixes(), 0u);

  // A cursor abandoned in the middle releases its leaf.
  {
    auto c = tree.seek(2500);
    ASSERT_TRUE(c.valid());
    for (int i = 0; i < 100; ++i) c.next();
    EXPECT_EQ(c.key(), 2600u);
    EXPECT_EQ(pages.outstanding(), 1);
  }
  EXPECT_TRUE(pages.clean()) << "an abandoned cursor";
  // Seek past the end.
  EXPECT_FALSE(tree.seek(999999).valid());
  EXPECT_TRUE(pages.clean()) << "seek past the end";
  // Move construction and assignment transfer or release the fix exactly once.
  {
    auto a = tree.seek(10);
    auto b = tree.seek(4000);
    EXPECT_EQ(pages.outstanding(), 2);
    a = std::move(b);  // releases a's leaf, takes b's
    EXPECT_EQ(pages.outstanding(), 1);
    ASSERT_TRUE(a.valid());
    EXPECT_EQ(a.key(), 4000u);
    auto c = std::move(a);
    EXPECT_EQ(pages.outstanding(), 1);
    EXPECT_EQ(c.key(), 4000u);
    auto d = tree.seek(10);  // two cursors on the same leaf share it
    auto e = tree.seek(11);
    EXPECT_EQ(pages.outstanding(), 3);
  }
  EXPECT_TRUE(pages.clean()) << "moved cursors";
}

TEST(PinBalance, BTreeScanOverEmptiedLeavesAndRandomOperations) {
  CountingPages pages(1024);
  PinTree tree(pages, kPinLayout);
  Model model;
  for (u64 i = 0; i < 10000; ++i) {
    ASSERT_TRUE(tree.insert(i, i));
    model.emplace(i, i);
  }
  for (u64 i = 1000; i < 9000; ++i) {
    ASSERT_TRUE(tree.erase(i));
    model.erase(i);
  }
  ASSERT_TRUE(pages.clean());
  pages.mark();
  ASSERT_TRUE(scan_equals(tree, model));
  EXPECT_TRUE(pages.clean()) << "scan across emptied leaves";
  EXPECT_LE(pages.max_held(), 2);
  auto c = tree.seek(999);
  c.next();
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(c.key(), 9000u);
  EXPECT_EQ(pages.outstanding(), 1);
  c = tree.seek(20000);  // assigning an invalid cursor releases the old leaf
  EXPECT_TRUE(pages.clean());

  Random rng(77);
  for (int op = 0; op < 30000; ++op) {
    const u64 k = static_cast<u64>(rng.uniform(0, 15000));
    switch (rng.uniform(0, 4)) {
      case 0:
      case 1: ASSERT_EQ(tree.insert(k, k + 1), model.emplace(k, k + 1).second); break;
      case 2: ASSERT_EQ(tree.erase(k), model.erase(k) == 1); break;
      case 3: {
        auto it = model.find(k);
        if (it != model.end()) it->second = k + 2;
        ASSERT_EQ(tree.update(k, k + 2), it != model.end());
        break;
      }
      default: ASSERT_TRUE(range_equals(tree, model, k, 50));
    }
    ASSERT_TRUE(pages.clean()) << "op " << op;
  }
  ASSERT_TRUE(scan_equals(tree, model));
  ASSERT_TRUE(check_structure(tree, pages));
  EXPECT_TRUE(pages.clean());
}

// ---------------------------------------------------------------------------
// The node as a slotted page (btree/node.hpp): inserts write records into the
// free space and move slots; erased records' bytes come back by compaction.

TEST(BTreeNode, SlotsKeepKeyOrderAndCompactionReclaimsErasedRecords) {
  for (u32 page_size : {1024u, 8192u, 65536u}) {
    std::vector<std::byte> page(page_size);
    const u32 cap = Node::capacity_for(page_size);
    ASSERT_LE(Node::heap_end_for(cap), std::min(page_size, 0xFFF0u));
    Node n(page.data(), cap);
    n.init(/*leaf=*/true);
    Model model;
    Random rng(page_size);
    // Fill, then erase and insert at random for several times the capacity:
    // without compaction the heap would run out after cap inserts.
    for (u32 op = 0; op < 8 * cap; ++op) {
      const u64 k = static_cast<u64>(rng.uniform(0, 2 * cap));
      u32 pos = 0;
      while (pos < n.count() && n.key_at(pos) < k) ++pos;
      const bool present = pos < n.count() && n.key_at(pos) == k;
      if (present && (n.full() || rng.uniform(0, 2) == 0)) {
        n.erase_at(pos);
        model.erase(k);
      } else if (!present && !n.full()) {
        n.insert_at(pos, k, k * 7);
        model.emplace(k, k * 7);
      } else if (present) {
        n.set_value(pos, k * 11);
        model[k] = k * 11;
      }
      ASSERT_EQ(n.count(), model.size());
      ASSERT_LE(n.header().heap_begin, Node::heap_end_for(cap));
      ASSERT_GE(n.header().heap_begin, sizeof(NodeHeader) + n.count() * sizeof(u16));
    }
    u32 i = 0;
    for (const auto& [k, v] : model) {
      ASSERT_EQ(n.key_at(i), k) << page_size << " slot " << i;
      ASSERT_EQ(n.value_at(i), v) << page_size << " slot " << i;
      ++i;
    }
  }
}

TEST(BTreeNode, InnerNodeHasFirstChildAndOneChildPerKey) {
  std::vector<std::byte> page(1024);
  Node n(page.data(), Node::capacity_for(1024));
  n.init(/*leaf=*/false);
  n.header().first_child = 100;
  n.append(10, 101);
  n.append(30, 103);
  n.insert_at(1, 20, 102);  // a separator goes in with the child right of it
  ASSERT_EQ(n.count(), 3u);
  for (u32 c = 0; c <= n.count(); ++c) EXPECT_EQ(n.child(c), 100 + c);
  EXPECT_EQ(n.key_at(1), 20u);
}

// ---------------------------------------------------------------------------
// Bulk load (btree/bulk_load.hpp): a tree written bottom-up from sorted
// entries has the invariants of one built by inserts, is as shallow as full
// nodes allow, answers like the model, and takes inserts afterwards.

TEST(BTreeBulkLoad, SortedEntriesGiveAValidMinimalTree) {
  const u32 cap = Node::capacity_for(1024);
  // Empty, one leaf, exactly full, one more, and 64 leaves (63 children fit
  // an inner node: the last inner node would get one child without a key).
  for (u64 n : {u64{0}, u64{1}, u64{cap}, u64{cap} + 1, u64{cap} * 63 + 1, u64{50000}}) {
    PageStore pages(1024);
    std::vector<BulkEntry> sorted;
    Model model;
    for (u64 i = 0; i < n; ++i) {
      sorted.push_back({i * 3 + 1, i * 7});
      model.emplace(i * 3 + 1, i * 7);
    }
    const BTreeShape shape = bulk_load(pages, sorted);
    BTree<IntegerKeyCompare, PageStore> tree(pages, KeyLayout{64}, shape.root, shape.height, shape.size);
    ASSERT_TRUE(check_structure(tree, pages)) << n << " entries";
    ASSERT_TRUE(scan_equals(tree, model)) << n << " entries";
    int minimal = 1;
    for (double fits = cap; fits < static_cast<double>(n); fits *= cap + 1) ++minimal;
    EXPECT_EQ(shape.height, minimal) << n << " entries";
    for (u64 from : {u64{0}, u64{2}, n / 2 * 3, n * 3 + 5}) ASSERT_TRUE(range_equals(tree, model, from, 100));
    // Inserts between the loaded keys split the full nodes as usual.
    for (u64 i = 0; i < std::min<u64>(n, 3000); ++i) {
      ASSERT_TRUE(tree.insert(i * 3 + 2, i));
      model.emplace(i * 3 + 2, i);
    }
    ASSERT_TRUE(check_structure(tree, pages)) << n << " entries, after inserts";
    ASSERT_TRUE(scan_equals(tree, model)) << n << " entries, after inserts";
  }
}

TEST(BTreeBulkLoad, RejectsUnsortedEntries) {
  PageStore pages(1024);
  EXPECT_THROW(bulk_load(pages, std::vector<BulkEntry>{{5, 0}, {5, 1}}), std::invalid_argument);
  EXPECT_THROW(bulk_load(pages, std::vector<BulkEntry>{{6, 0}, {5, 1}}), std::invalid_argument);
}

}  // namespace
}  // namespace dbrepro
