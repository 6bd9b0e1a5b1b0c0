// E1's components as Shore built them (issue 18): the space manager's
// record creation, malloc'd records (its removed form), the per-transaction
// store directory, and the buffer pool's page-LSN checks.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "btree/btree.hpp"
#include "buffer/buffer_pool.hpp"
#include "catalog/store_directory.hpp"
#include "log/page_lsn.hpp"
#include "storage/heap_file.hpp"
#include "storage/malloc_heap.hpp"
#include "storage/page_store.hpp"
#include "storage/space_manager.hpp"

using namespace dbrepro;

namespace {

std::vector<std::byte> bytes_of(u32 value, size_t length) {
  std::vector<std::byte> out(length);
  std::memcpy(out.data(), &value, sizeof(value));
  return out;
}

}  // namespace

TEST(FreeSpaceMap, TopIsThePageWithTheMostRoom) {
  FreeSpaceMap map;
  EXPECT_EQ(map.find(1), kInvalidPage);
  map.add(0, 100);
  map.add(1, 500);
  map.add(2, 300);
  EXPECT_EQ(map.find(400), 1u);
  EXPECT_EQ(map.find(501), kInvalidPage);
  map.update(1, 50);  // filled up
  EXPECT_EQ(map.find(200), 2u);
  map.update(0, 900);  // not the top: found and moved up
  EXPECT_EQ(map.find(800), 0u);
  EXPECT_EQ(map.size(), 3u);
}

TEST(ShoreSpaceHeap, RecordsCarryTheirTagAndComeBackIntact) {
  PageStore pages(8192);
  HeapFile<PageStore, NoLatching, ShoreSpace> heap(pages);
  std::vector<RecordId> ids;
  for (u32 i = 0; i < 1000; ++i) {
    const auto row = bytes_of(i, 54 + i % 7);
    ids.push_back(heap.create(row.data(), static_cast<u16>(row.size())));
  }
  EXPECT_EQ(heap.record_count(), 1000u);
  for (u32 i = 0; i < 1000; ++i) {
    const PinnedRecord pinned = heap.fix(ids[i]);
    u32 value;
    std::memcpy(&value, pinned.record, sizeof(value));
    EXPECT_EQ(value, i);
    // Shore's record tag sits in front of the body.
    ShoreSpace::Tag tag;
    std::memcpy(&tag, pinned.record - ShoreSpace::kHeader, sizeof(tag));
    EXPECT_EQ(tag.header_length, ShoreSpace::kHeader);
    EXPECT_EQ(tag.body_length, 54 + i % 7);
    EXPECT_EQ(tag.serial, i + 1);
    heap.unfix(ids[i], pinned);
  }
  u32 visited = 0;
  heap.for_each([&](RecordId, const std::byte* record) {
    u32 value;
    std::memcpy(&value, record, sizeof(value));
    EXPECT_EQ(value, visited++);
  });
  EXPECT_EQ(visited, 1000u);
}

TEST(ShoreSpaceHeap, FillsEveryPageBeforeTakingANewOne) {
  PageStore pages(8192);
  HeapFile<PageStore, NoLatching, ShoreSpace> tagged(pages);
  PageStore plain_pages(8192);
  HeapFile<PageStore> plain(plain_pages);
  const auto row = bytes_of(7, 100 + ShoreSpace::kHeader);  // room for either
  for (int i = 0; i < 5000; ++i) {
    tagged.create(row.data(), 100);
    plain.create(row.data(), 100);
  }
  // As many tagged records per page as an empty page takes: no page is left
  // behind with room (16 more bytes per record than plain appending).
  std::vector<std::byte> buffer(8192);
  SlottedPage one(buffer.data());
  one.init(8192);
  size_t per_page = 0;
  while (one.fits(100 + ShoreSpace::kHeader)) {
    one.insert(row.data(), 100 + ShoreSpace::kHeader);
    ++per_page;
  }
  EXPECT_EQ(tagged.page_count(), (5000 + per_page - 1) / per_page);
  EXPECT_GE(tagged.page_count(), plain.page_count());
}

TEST(MallocHeap, EachRecordItsOwnBlock) {
  MallocHeap<> heap;
  std::vector<RecordId> ids;
  for (u32 i = 0; i < 70000; ++i) {  // record numbers beyond one u16 slot field
    const auto row = bytes_of(i, 24);
    ids.push_back(heap.create(row.data(), 24));
  }
  EXPECT_EQ(heap.record_count(), 70000u);
  EXPECT_EQ(heap.page_count(), 0u);
  EXPECT_EQ(heap.bytes_outside_pages(), 70000u * 24);
  for (u32 i : {0u, 65535u, 65536u, 69999u}) {
    const PinnedRecord pinned = heap.fix(ids[i]);
    EXPECT_EQ(pinned.page, nullptr);
    u32 value;
    std::memcpy(&value, pinned.record, sizeof(value));
    EXPECT_EQ(value, i);
  }
  heap.erase(ids[3]);
  EXPECT_FALSE(heap.live(ids[3]));
  EXPECT_EQ(heap.record_count(), 69999u);
  heap.restore(ids[3]);
  EXPECT_TRUE(heap.live(ids[3]));
}

namespace {

struct FakeEntry {
  u16 id = 0;
};

}  // namespace

TEST(StoreDirectory, LooksUpEachStoreOncePerTransaction) {
  PageStore pages(8192);
  using Index = BTree<IntegerKeyCompare, PageStore>;
  StoreDirectory<FakeEntry, Index, NoLatching> directory(pages);
  std::vector<FakeEntry> entries(10);
  for (u16 i = 1; i < 10; ++i) {
    entries[i].id = i;
    directory.add(entries[i]);
  }
  Transaction txn;
  EXPECT_EQ(&directory.access(&txn, 3), &entries[3]);
  EXPECT_EQ(txn.stores.count, 1u) << "the first access reads the directory and caches the handle";
  EXPECT_EQ(&directory.access(&txn, 3), &entries[3]);
  EXPECT_EQ(txn.stores.count, 1u) << "later accesses hit the transaction's cache";
  EXPECT_EQ(&directory.access(&txn, 7), &entries[7]);
  EXPECT_EQ(txn.stores.count, 2u);
  decltype(directory)::end(&txn);
  EXPECT_EQ(txn.stores.count, 0u) << "the cache goes with the transaction";
  EXPECT_THROW(directory.access(&txn, 12), std::out_of_range);
}

TEST(PageLsnChecks, ExclusiveFixesRecordTheRecoveryLsnAndRefuseAnLsnGoingBack) {
  BufferPool<NoLatching, PageLsn> pool(4096, 8);
  const PageId pid = pool.allocate();
  // A shared fix changes nothing.
  std::byte* page = pool.fix(pid, LatchMode::kShared);
  pool.unfix(pid, page, LatchMode::kShared);
  EXPECT_EQ(pool.lsn_checks().rec_lsn(pid), PageLsn::Checks::kClean);
  // An exclusive fix that changes nothing leaves the page clean.
  page = pool.fix(pid, LatchMode::kExclusive);
  pool.unfix(pid, page, LatchMode::kExclusive);
  EXPECT_EQ(pool.lsn_checks().rec_lsn(pid), PageLsn::Checks::kClean);
  // The first change sets the recovery LSN; a later one keeps it.
  page = pool.fix(pid, LatchMode::kExclusive);
  PageLsn::stamp(page, 40);
  pool.unfix(pid, page, LatchMode::kExclusive);
  EXPECT_EQ(pool.lsn_checks().rec_lsn(pid), 40u);
  page = pool.fix(pid, LatchMode::kExclusive);
  PageLsn::stamp(page, 90);
  pool.unfix(pid, page, LatchMode::kExclusive);
  EXPECT_EQ(pool.lsn_checks().rec_lsn(pid), 40u);
  EXPECT_EQ(PageLsn::read(page), 90u);
  // Stamps never move the LSN back; a page whose LSN went back is refused.
  page = pool.fix(pid, LatchMode::kExclusive);
  PageLsn::stamp(page, 10);
  EXPECT_EQ(PageLsn::read(page), 90u);
  const Lsn older = 5;
  std::memcpy(page + PageLsn::kOffset, &older, sizeof(older));
  EXPECT_THROW(pool.unfix(pid, page, LatchMode::kExclusive), std::logic_error);
}
