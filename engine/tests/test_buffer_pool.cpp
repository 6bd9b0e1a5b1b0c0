// Tests of the buffer pool (buffer/buffer_pool.hpp) and of the page stores
// under the B+tree and the heap file: allocate / fix / unfix with pin counts,
// the frame found from the page address, many pages in the page table; the
// B+tree and heap files on BufferPool and DirectPages with latching (checked
// against std::map and against what was written); and several threads
// inserting into one latch-coupled B+tree at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "btree/btree.hpp"
#include "buffer/buffer_pool.hpp"
#include "common/random.hpp"
#include "log/write_ahead_log.hpp"
#include "storage/heap_file.hpp"
#include "storage/page_store.hpp"

namespace dbrepro {
namespace {

using Model = std::map<u64, u64>;

void shuffle(std::vector<u64>& v, Random& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(rng.uniform(0, static_cast<i64>(i) - 1))]);
}

// ---------------------------------------------------------------------------
// The pool itself

TEST(BufferPool, AllocateFixUnfixAndPinCounts) {
  BufferPool<NoLatching> pool(1024, 64);
  EXPECT_EQ(pool.page_size(), 1024u);
  EXPECT_EQ(pool.page_count(), 0u);
  const PageId a = pool.allocate();
  const PageId b = pool.allocate();
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 1u);
  EXPECT_EQ(pool.page_count(), 2u);
  EXPECT_EQ(pool.bytes(), 2048u);
  EXPECT_EQ(pool.pin_count(a), 0u);

  std::byte* pa = pool.fix(a, LatchMode::kExclusive);
  EXPECT_EQ(pool.pin_count(a), 1u);
  EXPECT_EQ(pool.pin_count(b), 0u);
  for (u32 i = 0; i < 1024; ++i) ASSERT_EQ(pa[i], std::byte{0}) << "a new page is not zero-filled at " << i;
  std::memset(pa, 0xAB, 1024);
  pool.unfix(a, pa, LatchMode::kExclusive);
  EXPECT_EQ(pool.pin_count(a), 0u);

  // The page keeps its frame and its bytes; pins nest.
  std::byte* pa1 = pool.fix(a);
  std::byte* pa2 = pool.fix(a, LatchMode::kShared);
  EXPECT_EQ(pa1, pa);
  EXPECT_EQ(pa2, pa);
  EXPECT_EQ(pool.pin_count(a), 2u);
  EXPECT_EQ(pa1[0], std::byte{0xAB});
  EXPECT_EQ(pa1[1023], std::byte{0xAB});
  std::byte* pb = pool.fix(b);
  EXPECT_TRUE(pb >= pa + 1024 || pb + 1024 <= pa) << "two pages overlap";
  EXPECT_EQ(pb[0], std::byte{0}) << "writing page a spilled into page b";
  pool.unfix(a, pa1);
  EXPECT_EQ(pool.pin_count(a), 1u);
  pool.unfix(a, pa2, LatchMode::kShared);
  pool.unfix(b, pb);
  EXPECT_EQ(pool.pin_count(a), 0u);
  EXPECT_EQ(pool.pin_count(b), 0u);
}

TEST(BufferPool, SharedFixesCoexistWithLatching) {
  BufferPool<Latching> pool(4096, 16);
  const PageId p = pool.allocate();
  std::byte* x = pool.fix(p, LatchMode::kShared);
  std::byte* y = pool.fix(p, LatchMode::kShared);  // a second reader does not wait
  EXPECT_EQ(pool.pin_count(p), 2u);
  pool.unfix(p, x, LatchMode::kShared);
  pool.unfix(p, y, LatchMode::kShared);
  std::byte* z = pool.fix(p, LatchMode::kExclusive);  // would wait forever if a shared latch leaked
  EXPECT_EQ(pool.pin_count(p), 1u);
  pool.unfix(p, z, LatchMode::kExclusive);
  // Another thread waits for an exclusive holder and gets the page after it.
  std::byte* w = pool.fix(p, LatchMode::kExclusive);
  std::atomic<bool> got{false};
  std::thread reader([&] {
    std::byte* r = pool.fix(p, LatchMode::kShared);
    got = true;
    pool.unfix(p, r, LatchMode::kShared);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(got.load()) << "a shared fix got past an exclusive one";
  EXPECT_EQ(pool.pin_count(p), 2u) << "the waiting reader's pin counts (taken before the latch)";
  pool.unfix(p, w, LatchMode::kExclusive);
  reader.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(pool.pin_count(p), 0u);
}

TEST(BufferPool, UnfixFindsTheFrameFromThePageAddress) {
  BufferPool<NoLatching> pool(2048, 64);
  std::vector<PageId> pids;
  for (int i = 0; i < 20; ++i) pids.push_back(pool.allocate());
  std::vector<std::byte*> fixed;
  for (PageId pid : pids) fixed.push_back(pool.fix(pid));
  for (PageId pid : pids) fixed.push_back(pool.fix(pid));  // every page pinned twice
  // Unfix in a scrambled order: only the named page's count drops.
  std::vector<size_t> order(fixed.size());
  std::iota(order.begin(), order.end(), size_t{0});
  Random rng(3);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(rng.uniform(0, static_cast<i64>(i) - 1))]);
  std::vector<u32> expected(pids.size(), 2);
  for (size_t k : order) {
    const size_t i = k % pids.size();
    pool.unfix(pids[i], fixed[k]);
    --expected[i];
    for (size_t j = 0; j < pids.size(); ++j) ASSERT_EQ(pool.pin_count(pids[j]), expected[j]) << "page " << j;
  }
}

TEST(BufferPool, ManyPagesInThePageTable) {
  constexpr size_t kPages = 5000;
  BufferPool<Latching> pool(4096, kPages);
  for (size_t i = 0; i < kPages; ++i) {
    const PageId pid = pool.allocate();
    ASSERT_EQ(pid, i);
    std::byte* p = pool.fix(pid, LatchMode::kExclusive);
    const u64 tag = pid * 2654435761u + 17;
    std::memcpy(p, &tag, sizeof(tag));
    std::memcpy(p + 4096 - sizeof(tag), &tag, sizeof(tag));
    pool.unfix(pid, p, LatchMode::kExclusive);
  }
  EXPECT_EQ(pool.page_count(), kPages);
  EXPECT_EQ(pool.bytes(), kPages * 4096);
  // Every page is found again with its own bytes, in any order.
  Random rng(8);
  std::vector<std::byte*> held;
  for (int n = 0; n < 20000; ++n) {
    const PageId pid = static_cast<PageId>(rng.uniform(0, kPages - 1));
    std::byte* p = pool.fix(pid);
    u64 head, tail;
    std::memcpy(&head, p, sizeof(head));
    std::memcpy(&tail, p + 4096 - sizeof(tail), sizeof(tail));
    ASSERT_EQ(head, pid * 2654435761u + 17) << "page " << pid;
    ASSERT_EQ(tail, head);
    pool.unfix(pid, p);
  }
  for (PageId pid = 0; pid < kPages; ++pid) ASSERT_EQ(pool.pin_count(pid), 0u) << pid;
  EXPECT_THROW(pool.fix(static_cast<PageId>(kPages + 7)), std::out_of_range) << "a page never allocated";
  EXPECT_EQ(pool.pin_count(static_cast<PageId>(kPages + 7)), 0u);
}

TEST(BufferPool, RejectsBadPageSizes) {
  EXPECT_THROW(BufferPool<NoLatching>(1000, 8), std::invalid_argument);
  EXPECT_THROW(BufferPool<NoLatching>(512, 8), std::invalid_argument);
  EXPECT_THROW(DirectPages<NoLatching>(3000), std::invalid_argument);
  EXPECT_NO_THROW(BufferPool<NoLatching>(65536, 8));
}

TEST(BufferPool, FullPoolThrowsAndKeepsItsCount) {
  BufferPool<NoLatching> pool(1024, 4);
  for (int i = 0; i < 4; ++i) pool.allocate();
  EXPECT_THROW(pool.allocate(), std::runtime_error);
  EXPECT_THROW(pool.allocate(), std::runtime_error);
  // The failed allocations must not count as pages (database_pages/bytes of a run).
  EXPECT_EQ(pool.page_count(), 4u) << "a failed allocate() was counted";
  EXPECT_EQ(pool.bytes(), 4u * 1024);
  // The resident pages are still there.
  for (PageId pid = 0; pid < 4; ++pid) {
    std::byte* p = pool.fix(pid);
    pool.unfix(pid, p);
  }
}

// ---------------------------------------------------------------------------
// B+tree and heap file on the page stores with latching.

template <class P>
class OnPages : public ::testing::Test {
 protected:
  using Pages = P;
  Pages pages{1024, 1 << 15};
};

template <class Pages>
void expect_no_pins(Pages& pages) {
  if constexpr (requires { pages.pin_count(PageId{0}); }) {
    for (PageId pid = 0; pid < pages.page_count(); ++pid) ASSERT_EQ(pages.pin_count(pid), 0u) << "page " << pid << " left pinned";
  }
}

using PageStores = ::testing::Types<BufferPool<Latching>, DirectPages<Latching>, BufferPool<NoLatching>>;
class PageStoreNames {
 public:
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, BufferPool<Latching>>) return "BufferPoolLatching";
    if constexpr (std::is_same_v<T, DirectPages<Latching>>) return "DirectPagesLatching";
    return "BufferPoolNoLatching";
  }
};
TYPED_TEST_SUITE(OnPages, PageStores, PageStoreNames);

TYPED_TEST(OnPages, BTreeMatchesStdMap) {
  BTree<IntegerKeyCompare, TypeParam> tree(this->pages, KeyLayout{16, 48});
  Model model;
  Random rng(101);
  for (int op = 0; op < 40000; ++op) {
    const u64 k = static_cast<u64>(rng.uniform(0, 9999)) * 7;
    const int dice = static_cast<int>(rng.uniform(0, 99));
    if (dice < 50) {
      ASSERT_EQ(tree.insert(k, k + op), model.emplace(k, k + op).second) << "op " << op;
    } else if (dice < 65) {
      ASSERT_EQ(tree.erase(k), model.erase(k) == 1) << "op " << op;
    } else if (dice < 75) {
      auto it = model.find(k);
      if (it != model.end()) it->second = op;
      ASSERT_EQ(tree.update(k, static_cast<u64>(op)), it != model.end()) << "op " << op;
    } else if (dice < 95) {
      u64 v = 0;
      auto it = model.find(k);
      ASSERT_EQ(tree.lookup(k, &v), it != model.end()) << "op " << op;
      if (it != model.end()) { ASSERT_EQ(v, it->second); }
    } else {
      auto it = model.lower_bound(k);
      auto c = tree.seek(k);
      for (int n = 0; n < 40 && it != model.end(); ++n, ++it, c.next()) {
        ASSERT_TRUE(c.valid()) << "op " << op;
        ASSERT_EQ(c.key(), it->first);
        ASSERT_EQ(c.value(), it->second);
      }
      if (it == model.end()) { ASSERT_FALSE(c.valid()); }
    }
  }
  EXPECT_EQ(tree.size(), model.size());
  EXPECT_GE(tree.height(), 3);
  auto it = model.begin();
  for (auto c = tree.begin(); c.valid(); c.next(), ++it) {
    ASSERT_NE(it, model.end());
    ASSERT_EQ(c.key(), it->first);
    ASSERT_EQ(c.value(), it->second);
  }
  EXPECT_EQ(it, model.end());
  expect_no_pins(this->pages);
}

TYPED_TEST(OnPages, BTreeStampsPageLsns) {
  BTree<IntegerKeyCompare, TypeParam, PageLsn> tree(this->pages, KeyLayout{64});
  for (u64 i = 1; i <= 5000; ++i) ASSERT_TRUE(tree.insert(i * 13 % 5003, i, /*lsn=*/i * 10));
  ASSERT_TRUE(tree.update(7, 1, 60000));
  ASSERT_TRUE(tree.erase(8, 60010));
  // Every node's LSN is one of the stamps; the newest change is on a leaf.
  u64 newest = 0;
  for (PageId pid = 0; pid < this->pages.page_count(); ++pid) {
    std::byte* page = this->pages.fix(pid, LatchMode::kShared);
    const NodeHeader h = Node(page, tree.node_capacity()).header();
    this->pages.unfix(pid, page, LatchMode::kShared);
    ASSERT_LE(h.lsn, 60010u);
    ASSERT_EQ(h.lsn % 10, 0u);
    newest = std::max(newest, h.lsn);
  }
  EXPECT_EQ(newest, 60010u);
  // With NoStamp (the default) nothing is stamped.
  BTree<IntegerKeyCompare, TypeParam> plain(this->pages, KeyLayout{64});
  const PageId root = plain.root();
  ASSERT_TRUE(plain.insert(1, 1, 999));
  std::byte* page = this->pages.fix(root, LatchMode::kShared);
  EXPECT_EQ(Node(page, plain.node_capacity()).header().lsn, 0u);
  this->pages.unfix(root, page, LatchMode::kShared);
  expect_no_pins(this->pages);
}

TYPED_TEST(OnPages, HeapFileCreateFixUpdateScan) {
  HeapFile<TypeParam, Latching> heap(this->pages);
  Random rng(55);
  std::vector<std::pair<RecordId, std::string>> rows;
  for (int i = 0; i < 3000; ++i) {
    std::string row(static_cast<size_t>(rng.uniform(8, 400)), 'a');
    for (char& c : row) c = static_cast<char>('a' + rng.uniform(0, 25));
    bool called = false;
    const RecordId rid = heap.create(row.data(), static_cast<u16>(row.size()), [&](RecordId created, std::byte* page) {
      called = true;
      EXPECT_EQ(std::memcmp(SlottedPage(page).record(created.slot), row.data(), row.size()), 0)
          << "the record is not in the page when on_created runs";
      if constexpr (requires { this->pages.pin_count(PageId{0}); }) {
        EXPECT_EQ(this->pages.pin_count(created.page), 1u) << "the page is not fixed during on_created";
      }
    });
    ASSERT_TRUE(called);
    rows.push_back({rid, row});
  }
  EXPECT_EQ(heap.record_count(), 3000u);
  EXPECT_GT(heap.page_count(), 100u);
  // Read every record back, then change some in place.
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& [rid, row] = rows[i];
    const PinnedRecord pinned = heap.fix(rid, LatchMode::kShared);
    ASSERT_EQ(std::memcmp(pinned.record, row.data(), row.size()), 0) << "record " << i;
    ASSERT_EQ(SlottedPage(pinned.page).length(rid.slot), row.size());
    heap.unfix(rid, pinned, LatchMode::kShared);
  }
  for (size_t i = 0; i < rows.size(); i += 3) {
    auto& [rid, row] = rows[i];
    const PinnedRecord pinned = heap.fix(rid, LatchMode::kExclusive);
    row[0] = 'Z';
    pinned.record[0] = static_cast<std::byte>('Z');
    heap.unfix(rid, pinned, LatchMode::kExclusive);
  }
  size_t n = 0;
  heap.for_each([&](RecordId rid, const std::byte* bytes) {
    ASSERT_LT(n, rows.size());
    EXPECT_EQ(rid, rows[n].first) << "for_each out of creation order at " << n;
    EXPECT_EQ(std::memcmp(bytes, rows[n].second.data(), rows[n].second.size()), 0) << "record " << n;
    ++n;
  });
  EXPECT_EQ(n, rows.size());
  expect_no_pins(this->pages);
}

TYPED_TEST(OnPages, BTreeAndHeapFileShareTheStore) {
  // An index over heap records, as the engine builds its tables.
  HeapFile<TypeParam, Latching> heap(this->pages);
  BTree<IntegerKeyCompare, TypeParam> index(this->pages, KeyLayout{32, 32});
  for (u64 i = 0; i < 4000; ++i) {
    const u64 payload[4] = {i, i * i, ~i, 42};
    const RecordId rid = heap.create(payload, sizeof(payload));
    ASSERT_TRUE(index.insert(KeyLayout{32, 32}.pack({i % 7, i}), rid.pack()));
  }
  u64 seen = 0;
  for (auto c = index.begin(); c.valid(); c.next(), ++seen) {
    const RecordId rid = RecordId::unpack(c.value());
    const PinnedRecord pinned = heap.fix(rid);
    u64 payload[4];
    std::memcpy(payload, pinned.record, sizeof(payload));
    heap.unfix(rid, pinned);
    const KeyLayout layout{32, 32};
    ASSERT_EQ(layout.pack({payload[0] % 7, payload[0]}), c.key());
    ASSERT_EQ(payload[1], payload[0] * payload[0]);
    ASSERT_EQ(payload[3], 42u);
  }
  EXPECT_EQ(seen, 4000u);
  expect_no_pins(this->pages);
}

// ---------------------------------------------------------------------------
// Several threads on one latch-coupled B+tree.

// Threads start together (a spin barrier), so that their inserts overlap.
template <class Pages>
void concurrent_inserts(bool interleaved, u64 seed) {
  constexpr int kThreads = 4;
  constexpr u64 kPerThread = 40000;
  Pages pages(1024, 1 << 16);
  BTree<IntegerKeyCompare, Pages> tree(pages, KeyLayout{64});
  std::atomic<int> failures{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<u64> keys(kPerThread);
      for (u64 i = 0; i < kPerThread; ++i)
        keys[i] = interleaved ? i * kThreads + static_cast<u64>(t) : static_cast<u64>(t) * kPerThread + i;
      Random rng(seed * 10 + static_cast<u64>(t) + 1);
      shuffle(keys, rng);
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (u64 k : keys) {
        if (!tree.insert(k, k * 3 + 1)) failures.fetch_add(1);
        u64 v = 0;
        if (!tree.lookup(k, &v) || v != k * 3 + 1) failures.fetch_add(1);  // its own insert is visible at once
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0) << "an insert or a lookup of a thread's own key failed";
  const u64 total = kThreads * kPerThread;
  EXPECT_EQ(tree.size(), total);
  EXPECT_GE(tree.height(), 3) << "the test did not split the root more than once";
  u64 expected = 0;
  for (auto c = tree.begin(); c.valid(); c.next(), ++expected) {
    ASSERT_EQ(c.key(), expected) << "a key is missing or out of order";
    ASSERT_EQ(c.value(), expected * 3 + 1);
  }
  EXPECT_EQ(expected, total);
  for (u64 k = 0; k < total; k += 101) {
    u64 v = 0;
    ASSERT_TRUE(tree.lookup(k, &v)) << k;
    ASSERT_EQ(v, k * 3 + 1);
  }
  expect_no_pins(pages);
}

TEST(ConcurrentBTree, DisjointRangesOnBufferPool) {
  for (u64 seed = 1; seed <= 3; ++seed) concurrent_inserts<BufferPool<Latching>>(false, seed);
}
TEST(ConcurrentBTree, InterleavedKeysOnBufferPool) {
  for (u64 seed = 1; seed <= 3; ++seed) concurrent_inserts<BufferPool<Latching>>(true, seed);
}
TEST(ConcurrentBTree, InterleavedKeysOnDirectPages) {
  for (u64 seed = 1; seed <= 3; ++seed) concurrent_inserts<DirectPages<Latching>>(true, seed);
}

TEST(ConcurrentBTree, ReadersAndUpdatersBesideInserters) {
  // Keys 0, 2, 4, ... are there from the start: readers must always find them,
  // scans must always be ascending; inserters add the odd keys; updaters
  // rewrite the even keys' values.
  using Pages = BufferPool<Latching>;
  Pages pages(1024, 1 << 15);
  BTree<IntegerKeyCompare, Pages> tree(pages, KeyLayout{64});
  constexpr u64 kKeys = 100000;
  for (u64 k = 0; k < kKeys; k += 2) ASSERT_TRUE(tree.insert(k, k));
  std::atomic<int> failures{0};
  std::atomic<int> inserters_done{0};
  std::atomic<int> ready{0};
  auto start_together = [&] {
    ready.fetch_add(1);
    while (ready.load() < 4) std::this_thread::yield();
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < 2; ++t) {
    pool.emplace_back([&, t] {
      start_together();
      for (u64 k = 1 + 2 * static_cast<u64>(t); k < kKeys; k += 4)
        if (!tree.insert(k, k)) failures.fetch_add(1);
      inserters_done.fetch_add(1);
    });
  }
  pool.emplace_back([&] {  // reader: lookups and short scans
    start_together();
    Random rng(9);
    for (int n = 0; n < 50000; ++n) {
      const u64 k = static_cast<u64>(rng.uniform(0, kKeys / 2 - 1)) * 2;
      if (!tree.lookup(k, nullptr)) failures.fetch_add(1);
      if (n % 50 == 0) {
        u64 prev = 0;
        bool first = true;
        int steps = 0;
        for (auto c = tree.seek(k); c.valid() && steps < 200; c.next(), ++steps) {
          if (!first && c.key() <= prev) failures.fetch_add(1);
          prev = c.key();
          first = false;
        }
      }
    }
  });
  pool.emplace_back([&] {  // updater of the even keys
    start_together();
    for (int round = 0; round < 2; ++round)
      for (u64 k = 0; k < kKeys; k += 2)
        if (!tree.update(k, k + 1000000 * static_cast<u64>(round + 1))) failures.fetch_add(1);
  });
  for (auto& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(inserters_done.load(), 2);
  EXPECT_EQ(tree.size(), kKeys);
  u64 expected = 0;
  for (auto c = tree.begin(); c.valid(); c.next(), ++expected) {
    ASSERT_EQ(c.key(), expected);
    ASSERT_EQ(c.value(), expected % 2 ? expected : expected + 2000000);
  }
  EXPECT_EQ(expected, kKeys);
  expect_no_pins(pages);
}

}  // namespace
}  // namespace dbrepro
