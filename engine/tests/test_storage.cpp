// Tests of the storage layer: PageStore, RecordId, SlottedPage, HeapFile.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "storage/heap_file.hpp"
#include "storage/page_store.hpp"
#include "storage/record_id.hpp"
#include "storage/slotted_page.hpp"

namespace dbrepro {
namespace {

// ---------------------------------------------------------------------------
// Helpers

// Deterministic record contents: byte j of record i.
std::byte pattern_byte(u64 i, size_t j) { return static_cast<std::byte>((i * 131 + j * 7 + 11) & 0xFF); }

std::vector<std::byte> make_record(u64 i, size_t length) {
  std::vector<std::byte> r(length);
  for (size_t j = 0; j < length; ++j) r[j] = pattern_byte(i, j);
  return r;
}

bool record_matches(const std::byte* data, u64 i, size_t length) {
  for (size_t j = 0; j < length; ++j)
    if (data[j] != pattern_byte(i, j)) return false;
  return true;
}

// A page store that counts outstanding fixes per page and latch mode (what a
// buffer pool's pin counts would be), to check that fix and unfix are balanced,
// in the same mode, with the page fix returned.
class CountingPages {
 public:
  explicit CountingPages(u32 page_size) : store_(page_size) {}
  PageId allocate() {
    const PageId pid = store_.allocate();
    pins_.resize(store_.page_count(), {0, 0});
    frames_.push_back(store_.fix(pid));
    store_.unfix(pid);
    return pid;
  }
  std::byte* fix(PageId pid, LatchMode mode = LatchMode::kShared) {
    ++pins_.at(pid)[index(mode)];
    return store_.fix(pid, mode);
  }
  void unfix(PageId pid, std::byte* page, LatchMode mode) {
    if (page != frames_.at(pid)) wrong_page_ = true;
    unfix(pid, mode);
  }
  void unfix(PageId pid, LatchMode mode = LatchMode::kShared) {
    --pins_.at(pid)[index(mode)];
    store_.unfix(pid, mode);
  }
  u32 page_size() const { return store_.page_size(); }
  size_t page_count() const { return store_.page_count(); }

  long outstanding() const {
    long total = 0;
    for (const auto& p : pins_) total += p[0] + p[1];
    return total;
  }
  // A negative count: an unfix without a fix, or in another mode than the fix.
  bool any_negative() const {
    for (const auto& p : pins_)
      if (p[0] < 0 || p[1] < 0) return true;
    return false;
  }
  bool wrong_page() const { return wrong_page_; }

 private:
  static int index(LatchMode mode) { return mode == LatchMode::kShared ? 0 : 1; }
  PageStore store_;
  std::vector<std::array<long, 2>> pins_;
  std::vector<std::byte*> frames_;
  bool wrong_page_ = false;
};

// ---------------------------------------------------------------------------
// PageStore

TEST(PageStore, RejectsBadPageSizes) {
  for (u32 bad : {0u, 1u, 2u, 512u, 1000u, 1023u, 1025u, 1536u, 3000u, 4095u, 6144u, 8191u, 8193u, 12288u,
                  65535u, 65537u, 100000u}) {
    EXPECT_THROW(PageStore{bad}, std::invalid_argument) << "page size " << bad;
  }
}

TEST(PageStore, AcceptsPowersOfTwoFrom1024) {
  for (u32 good : {1024u, 2048u, 4096u, 8192u, 16384u, 32768u, 65536u, 131072u}) {
    PageStore store(good);
    EXPECT_EQ(store.page_size(), good);
    EXPECT_EQ(store.page_count(), 0u);
    EXPECT_EQ(store.bytes(), 0u);
  }
  PageStore def;
  EXPECT_EQ(def.page_size(), PageStore::kDefaultPageSize);
  EXPECT_EQ(PageStore::kDefaultPageSize, 8192u);
}

TEST(PageStore, AllocateGivesSequentialIdsAndCounts) {
  PageStore store(1024);
  for (PageId i = 0; i < 100; ++i) {
    EXPECT_EQ(store.allocate(), i);
    EXPECT_EQ(store.page_count(), static_cast<size_t>(i) + 1);
    EXPECT_EQ(store.bytes(), (static_cast<size_t>(i) + 1) * 1024u);
  }
}

bool all_zero(const std::byte* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != std::byte{0}) return false;
  return true;
}

TEST(PageStore, AllocateGivesZeroedPages) {
  // Dirty the heap first: fill pages of a store and free it, so that the next
  // store's allocations are likely to reuse that memory.
  for (u32 page_size : {1024u, 8192u, 65536u}) {
    {
      PageStore dirty(page_size);
      for (int i = 0; i < 64; ++i) {
        const PageId pid = dirty.allocate();
        std::memset(dirty.fix(pid), 0xAB, page_size);
      }
    }
    PageStore store(page_size);
    for (int i = 0; i < 64; ++i) {
      const PageId pid = store.allocate();
      ASSERT_TRUE(all_zero(store.fix(pid), page_size)) << "page " << pid << " of size " << page_size;
      std::memset(store.fix(pid), 0xCD, page_size);  // dirty for the next allocation too
      store.unfix(pid);
    }
  }
}

TEST(PageStore, PagesAreDistinctAndPersistent) {
  PageStore store(1024);
  std::vector<std::byte*> ptrs;
  for (u32 i = 0; i < 300; ++i) {
    const PageId pid = store.allocate();
    std::byte* p = store.fix(pid);
    ptrs.push_back(p);
    std::memset(p, static_cast<int>(i & 0xFF), 1024);
    store.unfix(pid);
  }
  // Frames never move: a pointer from fix stays valid across later allocations
  // (the B+tree relies on this while it splits).
  std::set<std::byte*> distinct(ptrs.begin(), ptrs.end());
  EXPECT_EQ(distinct.size(), ptrs.size());
  for (u32 i = 0; i < 300; ++i) {
    ASSERT_EQ(store.fix(i), ptrs[i]);
    store.unfix(i);
    ASSERT_EQ(store.fix(i, LatchMode::kExclusive), ptrs[i]);
    store.unfix(i, ptrs[i], LatchMode::kExclusive);
    for (u32 b = 0; b < 1024; ++b) ASSERT_EQ(ptrs[i][b], static_cast<std::byte>(i & 0xFF)) << "page " << i;
  }
}

// ---------------------------------------------------------------------------
// RecordId

TEST(RecordId, DefaultIsInvalid) {
  RecordId rid;
  EXPECT_EQ(rid.page, kInvalidPage);
  EXPECT_EQ(rid.slot, 0);
}

TEST(RecordId, PackUnpackRoundTrip) {
  Random rng(3);
  std::vector<RecordId> rids = {RecordId{0, 0}, RecordId{kInvalidPage, 0xFFFF}, RecordId{kInvalidPage, 0},
                                RecordId{0, 0xFFFF}, RecordId{1, 2}};
  for (int i = 0; i < 10000; ++i)
    rids.push_back(RecordId{static_cast<PageId>(rng.next()), static_cast<u16>(rng.next())});
  for (const RecordId& rid : rids) {
    const RecordId back = RecordId::unpack(rid.pack());
    ASSERT_EQ(back, rid) << rid.page << ":" << rid.slot;
    ASSERT_EQ(back.page, rid.page);
    ASSERT_EQ(back.slot, rid.slot);
  }
  // Packing is injective and ordered by (page, slot).
  EXPECT_LT((RecordId{1, 0xFFFF}.pack()), (RecordId{2, 0}.pack()));
  EXPECT_LT((RecordId{7, 3}.pack()), (RecordId{7, 4}.pack()));
  EXPECT_NE((RecordId{1, 0}), (RecordId{0, 1}));
}

// ---------------------------------------------------------------------------
// SlottedPage
//
// The layout rule the tests check against, written out independently of the
// engine: a page's record area ends at area_end (0xFFF8 on a 64 KB page, the
// largest multiple of 8 a u16 offset holds; the page end otherwise). Records
// grow down from there; a record of length L goes to the highest multiple of 8
// at which it ends at or before the start of the previous record (free_end),
// and it fits only when that start is at or after the end of the slot array
// including the record's own new slot.

constexpr u32 kHeaderSize = sizeof(SlottedPageHeader);
constexpr u32 kSlotSize = sizeof(Slot);
constexpr u32 floor8(u32 x) { return x & ~7u; }
constexpr u32 ceil8(u32 x) { return (x + 7) & ~7u; }

// Geometry of a fresh page, spelled out per page size.
struct Geometry {
  u32 page_size;
  u32 area_end;     // where the record area ends
  u32 max_record;   // largest record a fresh page takes: area_end - ceil8(16 + 4)
  u32 empty_slots;  // zero-length records a fresh page takes: (area_end - 16) / 4
};
constexpr Geometry kGeometries[] = {
    {1024, 1024, 1000, 252},     {2048, 2048, 2024, 508},       {4096, 4096, 4072, 1020},
    {8192, 8192, 8168, 2044},    {16384, 16384, 16360, 4092},   {32768, 32768, 32744, 8188},
    {65536, 0xFFF8, 65504, 16378},
};
Geometry geometry(u32 page_size) {
  for (const Geometry& g : kGeometries)
    if (g.page_size == page_size) return g;
  ADD_FAILURE() << "no geometry for page size " << page_size;
  return Geometry{page_size, page_size, 0, 0};
}

// The rule above as a model of one page's state.
struct PageModel {
  u32 free_end;
  u32 slots = 0;

  explicit PageModel(u32 page_size) : free_end(geometry(page_size).area_end) {}
  u32 slot_array_end() const { return kHeaderSize + slots * kSlotSize; }
  // Largest record that fits now; -1 if not even a zero-length one does.
  i64 largest_fitting() const {
    const u32 lowest_start = ceil8(slot_array_end() + kSlotSize);
    return free_end >= lowest_start ? static_cast<i64>(free_end) - lowest_start : -1;
  }
  bool fits(u32 length) const { return static_cast<i64>(length) <= largest_fitting(); }
  u32 free_space() const { return free_end - slot_array_end(); }
  // Places a record; returns its offset in the page.
  u32 insert(u32 length) {
    free_end = floor8(free_end - length);
    ++slots;
    return free_end;
  }
};

u32 offset_in(const std::byte* page, const std::byte* p) { return static_cast<u32>(p - page); }

class SlottedPageTest : public ::testing::TestWithParam<u32> {
 protected:
  void SetUp() override {
    buf_.assign(GetParam(), std::byte{0x5A});  // garbage: init must not rely on zeroed memory
  }
  std::byte* base() { return buf_.data(); }
  u32 offset(const SlottedPage& page, u16 slot) { return offset_in(buf_.data(), page.record(slot)); }
  std::vector<std::byte> buf_;
};

INSTANTIATE_TEST_SUITE_P(PageSizes, SlottedPageTest,
                         ::testing::Values(1024u, 2048u, 4096u, 8192u, 16384u, 32768u, 65536u));

TEST(SlottedPageLayout, Constants) {
  EXPECT_EQ(SlottedPage::kAlign, 8u);
  EXPECT_EQ(kHeaderSize, 16u);
  EXPECT_EQ(kSlotSize, 4u);
  EXPECT_EQ(SlottedPage::kMaxPageSize, 65536u);
  for (const Geometry& g : kGeometries) {
    EXPECT_EQ(SlottedPage::area_end(g.page_size), g.area_end) << "page size " << g.page_size;
    EXPECT_EQ(SlottedPage::max_record(g.page_size), g.max_record) << "page size " << g.page_size;
    // The table agrees with the rule.
    EXPECT_EQ(g.max_record, g.area_end - ceil8(kHeaderSize + kSlotSize));
    EXPECT_EQ(g.empty_slots, (g.area_end - kHeaderSize) / kSlotSize);
    EXPECT_EQ(g.area_end % 8, 0u);
    EXPECT_LE(g.area_end, g.page_size);
    EXPECT_LE(g.area_end, 0xFFFFu);  // free_end and record offsets are u16
  }
}

TEST_P(SlottedPageTest, InitEmpty) {
  const Geometry g = geometry(GetParam());
  SlottedPage page(base());
  page.init(GetParam());
  EXPECT_EQ(page.slot_count(), 0);
  EXPECT_EQ(page.free_space(), g.area_end - kHeaderSize);
  SlottedPageHeader h;
  std::memcpy(&h, base(), sizeof h);
  EXPECT_EQ(h.slot_count, 0);
  EXPECT_EQ(h.free_end, g.area_end);
  EXPECT_EQ(h.page_size, GetParam());
  EXPECT_EQ(h.reserved, 0u);
}

TEST_P(SlottedPageTest, FitsBoundaryOnFreshPage) {
  const u32 ps = GetParam();
  const Geometry g = geometry(ps);
  SlottedPage page(base());
  page.init(ps);
  EXPECT_TRUE(page.fits(0));
  EXPECT_TRUE(page.fits(g.max_record));
  EXPECT_FALSE(page.fits(g.max_record + 1));
  // The lengths the unaligned layout took: refused now (they would put the
  // record at an offset that is not a multiple of 8 or overlap the slot).
  for (u32 len = g.max_record + 1; len <= g.area_end - kHeaderSize - kSlotSize; ++len)
    EXPECT_FALSE(page.fits(len)) << len;
  EXPECT_FALSE(page.fits(ps));
  EXPECT_FALSE(page.fits(ps + 1));
  EXPECT_FALSE(page.fits(1u << 20));
  EXPECT_FALSE(page.fits(0xFFFFFFFFu));
  // Exactly the lengths up to max_record fit.
  u32 wrong = 0;
  for (u32 len = 0; len <= ps + 16; ++len)
    if (page.fits(len) != (len <= g.max_record) && ++wrong <= 5) ADD_FAILURE() << "fits(" << len << ")";
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(page.slot_count(), 0);  // fits() changes nothing
  EXPECT_EQ(page.free_space(), g.area_end - kHeaderSize);
}

TEST_P(SlottedPageTest, LargestRecordFillsPageExactly) {
  const u32 ps = GetParam();
  const Geometry g = geometry(ps);
  SlottedPage page(base());
  page.init(ps);
  ASSERT_TRUE(page.fits(g.max_record));
  const auto rec = make_record(1, g.max_record);
  const u16 slot = page.insert(rec.data(), static_cast<u16>(g.max_record));
  EXPECT_EQ(slot, 0);
  EXPECT_EQ(page.slot_count(), 1);
  EXPECT_EQ(page.length(0), g.max_record);
  EXPECT_TRUE(record_matches(page.record(0), 1, g.max_record));
  // It starts at the first multiple of 8 after the header and its slot (24)
  // and ends where the record area ends.
  EXPECT_EQ(offset(page, 0), 24u);
  EXPECT_EQ(offset(page, 0) + g.max_record, g.area_end);
  // What is left is the 4 bytes of alignment padding after the slot array:
  // room for one more slot with a zero-length record, for no record byte.
  EXPECT_EQ(page.free_space(), 4u);
  EXPECT_FALSE(page.fits(1));
  EXPECT_FALSE(page.fits(8));
  EXPECT_TRUE(page.fits(0));
  EXPECT_EQ(page.insert(nullptr, 0), 1);
  EXPECT_EQ(offset(page, 1), 24u);
  EXPECT_EQ(page.length(1), 0);
  EXPECT_EQ(page.free_space(), 0u);
  EXPECT_FALSE(page.fits(0));
  // The second slot, written into the padding, left the record intact.
  EXPECT_EQ(page.length(0), g.max_record);
  EXPECT_EQ(offset(page, 0), 24u);
  EXPECT_TRUE(record_matches(page.record(0), 1, g.max_record));
}

TEST_P(SlottedPageTest, InsertReadAndSlotCount) {
  const u32 ps = GetParam();
  SlottedPage page(base());
  page.init(ps);
  PageModel model(ps);
  Random rng(ps);
  std::vector<u16> lengths;
  for (;;) {
    // The exact boundary of fits() in the current state.
    const i64 largest = model.largest_fitting();
    if (largest >= 0) {
      ASSERT_TRUE(page.fits(static_cast<u32>(largest))) << "after " << lengths.size() << " records";
      ASSERT_FALSE(page.fits(static_cast<u32>(largest) + 1)) << "after " << lengths.size() << " records";
    } else {
      ASSERT_FALSE(page.fits(0)) << "after " << lengths.size() << " records";
    }
    const u16 len = static_cast<u16>(rng.uniform(0, 120));
    ASSERT_EQ(page.fits(len), model.fits(len)) << "length " << len << " after " << lengths.size() << " records";
    if (!model.fits(len)) break;
    const auto rec = make_record(lengths.size(), len);
    const u16 slot = page.insert(rec.data(), len);
    ASSERT_EQ(slot, lengths.size());
    lengths.push_back(len);
    const u32 expected_offset = model.insert(len);
    ASSERT_EQ(page.slot_count(), lengths.size());
    ASSERT_EQ(offset(page, slot), expected_offset) << "slot " << slot << ", length " << len;
    ASSERT_EQ(page.free_space(), model.free_space()) << "after slot " << slot << ", length " << len;
  }
  ASSERT_GT(lengths.size(), 5u);
  // Every record intact, correct length, 8-byte aligned, inside the record
  // area after the slot array, no two overlap.
  const u32 area_end = geometry(ps).area_end;
  std::map<u32, u16> extents;
  for (u16 s = 0; s < page.slot_count(); ++s) {
    ASSERT_EQ(page.length(s), lengths[s]);
    ASSERT_TRUE(record_matches(page.record(s), s, lengths[s])) << "slot " << s;
    ASSERT_EQ(offset(page, s) % 8, 0u) << "slot " << s;
    ASSERT_GE(offset(page, s), kHeaderSize + page.slot_count() * kSlotSize) << "slot " << s;
    ASSERT_LE(offset(page, s) + lengths[s], area_end) << "slot " << s;
    if (lengths[s] > 0) extents[offset(page, s)] = lengths[s];
  }
  u32 prev_end = 0;
  for (const auto& [start, len] : extents) {
    ASSERT_LE(prev_end, start);
    prev_end = start + len;
  }
}

TEST_P(SlottedPageTest, InPlaceUpdate) {
  SlottedPage page(base());
  page.init(GetParam());
  constexpr u16 kLen = 64;
  for (u64 i = 0; i < 10; ++i) {
    const auto rec = make_record(i, kLen);
    page.insert(rec.data(), kLen);
  }
  const u32 free_before = page.free_space();
  // Overwrite record 4 with record 1000's contents.
  const auto updated = make_record(1000, kLen);
  std::byte* const where = page.record(4);
  std::memcpy(where, updated.data(), kLen);
  EXPECT_EQ(page.record(4), where);  // same place
  EXPECT_EQ(page.length(4), kLen);
  EXPECT_EQ(page.slot_count(), 10);
  EXPECT_EQ(page.free_space(), free_before);
  for (u16 s = 0; s < 10; ++s) {
    if (s == 4) {
      EXPECT_TRUE(record_matches(page.record(s), 1000, kLen));
    } else {
      EXPECT_TRUE(record_matches(page.record(s), s, kLen)) << "slot " << s;
    }
  }
}

TEST_P(SlottedPageTest, ManyEmptyRecordsUseOnlySlots) {
  const Geometry g = geometry(GetParam());
  SlottedPage page(base());
  page.init(GetParam());
  u32 n = 0;
  while (page.fits(0)) {
    page.insert(nullptr, 0);
    ++n;
  }
  EXPECT_EQ(n, g.empty_slots);
  EXPECT_EQ(page.slot_count(), n);
  // The slot array reaches exactly to the (untouched) start of the record area.
  EXPECT_EQ(page.free_space(), 0u);
  EXPECT_EQ(kHeaderSize + n * kSlotSize, g.area_end);
  for (u16 s = 0; s < page.slot_count(); ++s) {
    ASSERT_EQ(page.length(s), 0);
    ASSERT_EQ(offset(page, s), g.area_end) << "slot " << s;
  }
}

// Odd lengths are the ones the unaligned layout put at odd offsets.
TEST_P(SlottedPageTest, OddLengthRecordsStartAt8ByteOffsets) {
  const u32 ps = GetParam();
  const Geometry g = geometry(ps);
  std::vector<u32> odd_lengths = {1, 3, 5, 7, 9, 11, 13, 15, 17, 31, 33, 63, 65, 99, 127, 129, 255, 257, 1001,
                                  g.max_record / 2 + 1, g.max_record / 3 | 1, g.max_record - 1};
  for (u32 len : odd_lengths) {
    if (len > g.max_record) continue;
    ASSERT_EQ(len % 2, 1u);
    buf_.assign(ps, std::byte{0x5A});
    SlottedPage page(base());
    page.init(ps);
    PageModel model(ps);
    u32 prev_start = g.area_end;
    const auto rec = make_record(len, len);
    while (page.fits(len)) {
      ASSERT_TRUE(model.fits(len));
      const u16 s = page.insert(rec.data(), static_cast<u16>(len));
      const u32 off = offset(page, s);
      ASSERT_EQ(off % 8, 0u) << "length " << len << ", slot " << s;
      ASSERT_EQ(off, model.insert(len)) << "length " << len << ", slot " << s;
      // Packed as tightly as alignment allows: under 8 bytes of padding.
      ASSERT_LE(off + len, prev_start);
      ASSERT_LT(prev_start - (off + len), 8u) << "length " << len << ", slot " << s;
      prev_start = off;
    }
    ASSERT_FALSE(model.fits(len)) << "length " << len;
    ASSERT_EQ(page.slot_count(), model.slots) << "length " << len;
    ASSERT_GE(page.slot_count(), 1) << "length " << len;
    for (u16 s = 0; s < page.slot_count(); ++s) {
      ASSERT_EQ(offset(page, s) % 8, 0u);
      ASSERT_EQ(page.length(s), len);
      ASSERT_TRUE(record_matches(page.record(s), len, len)) << "length " << len << ", slot " << s;
    }
  }
  // Random odd lengths, up to an eighth of the page, until the page refuses one.
  buf_.assign(ps, std::byte{0x5A});
  SlottedPage page(base());
  page.init(ps);
  PageModel model(ps);
  Random rng(ps + 1);
  std::vector<u16> lengths;
  for (;;) {
    const u16 len = static_cast<u16>(rng.uniform(0, ps / 16) * 2 + 1);
    ASSERT_EQ(page.fits(len), model.fits(len));
    if (!model.fits(len)) break;
    const auto rec = make_record(lengths.size(), len);
    const u16 s = page.insert(rec.data(), len);
    lengths.push_back(len);
    ASSERT_EQ(offset(page, s), model.insert(len));
    ASSERT_EQ(offset(page, s) % 8, 0u) << "slot " << s << ", length " << len;
  }
  ASSERT_GT(lengths.size(), 5u);
  for (u16 s = 0; s < page.slot_count(); ++s) {
    ASSERT_EQ(offset(page, s) % 8, 0u) << "slot " << s;
    ASSERT_TRUE(record_matches(page.record(s), s, lengths[s])) << "slot " << s;
  }
}

// Fill a page with records of each length (every residue mod 8 three times
// over), then with zero-length records until not even a slot fits: no record
// may start before the end of the slot array, and writing slots must not
// touch record bytes (nor writing records the slots).
TEST_P(SlottedPageTest, RecordsNeverOverlapTheSlotArray) {
  const u32 ps = GetParam();
  for (u32 len = 0; len <= 24; ++len) {
    buf_.assign(ps, std::byte{0x5A});
    SlottedPage page(base());
    page.init(ps);
    PageModel model(ps);
    u32 n_real = 0;
    auto check = [&](const char* phase) {
      const u32 slot_end = kHeaderSize + page.slot_count() * kSlotSize;
      for (u16 s = 0; s < page.slot_count(); ++s) {
        ASSERT_GE(offset(page, s), slot_end) << phase << ": length " << len << ", slot " << s;
        ASSERT_EQ(offset(page, s) % 8, 0u) << phase << ": length " << len << ", slot " << s;
      }
      ASSERT_EQ(page.free_space(), model.free_space()) << phase << ": length " << len;
    };
    while (page.fits(len)) {
      const auto rec = make_record(n_real, len);
      page.insert(rec.data(), static_cast<u16>(len));
      model.insert(len);
      ++n_real;
      // The newest record is the lowest; it must begin at or after the slot array.
      ASSERT_GE(offset(page, static_cast<u16>(n_real - 1)), kHeaderSize + n_real * kSlotSize)
          << "length " << len << ", slot " << n_real - 1;
    }
    ASSERT_FALSE(model.fits(len)) << "length " << len;
    ASSERT_EQ(page.slot_count(), n_real);
    check("records");
    while (page.fits(0)) {
      page.insert(nullptr, 0);
      model.insert(0);
    }
    ASSERT_FALSE(model.fits(0)) << "length " << len;
    ASSERT_EQ(page.slot_count(), model.slots);
    check("records and empty slots");
    // Full: the slot array reaches exactly to the lowest record.
    EXPECT_EQ(page.free_space(), 0u) << "length " << len;
    EXPECT_EQ(kHeaderSize + page.slot_count() * kSlotSize, model.free_end) << "length " << len;
    for (u16 s = 0; s < n_real; ++s) {
      ASSERT_EQ(page.length(s), len);
      ASSERT_TRUE(record_matches(page.record(s), s, len)) << "length " << len << ", slot " << s;
    }
    // Overwrite every record in place; the slots are unchanged.
    std::vector<u32> offsets;
    for (u16 s = 0; s < page.slot_count(); ++s) offsets.push_back(offset(page, s));
    for (u16 s = 0; s < n_real; ++s) {
      const auto rec = make_record(s + 7777, len);
      if (len > 0) std::memcpy(page.record(s), rec.data(), len);
    }
    ASSERT_EQ(page.slot_count(), model.slots);
    for (u16 s = 0; s < page.slot_count(); ++s) {
      ASSERT_EQ(offset(page, s), offsets[s]) << "length " << len << ", slot " << s;
      ASSERT_EQ(page.length(s), s < n_real ? len : 0u) << "length " << len << ", slot " << s;
      if (s < n_real) {
        ASSERT_TRUE(record_matches(page.record(s), s + 7777, len)) << "length " << len << ", slot " << s;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// HeapFile

// Reads a record through the heap's fix/unfix.
template <class Heap>
bool heap_record_matches(Heap& heap, RecordId rid, u64 i, size_t length) {
  const PinnedRecord pinned = heap.fix(rid);
  const bool ok = record_matches(pinned.record, i, length);
  heap.unfix(rid, pinned);
  return ok;
}

TEST(HeapFile, RejectsPagesAbove64KB) {
  PageStore big(131072);
  EXPECT_THROW(HeapFile<PageStore>{big}, std::invalid_argument);
  PageStore ok(65536);
  EXPECT_NO_THROW(HeapFile<PageStore>{ok});
}

TEST(HeapFile, EmptyFile) {
  PageStore store(1024);
  HeapFile<PageStore> heap(store);
  EXPECT_EQ(heap.record_count(), 0u);
  EXPECT_EQ(heap.page_count(), 0u);
  int visited = 0;
  heap.for_each([&](RecordId, std::byte*) { ++visited; });
  EXPECT_EQ(visited, 0);
  EXPECT_EQ(store.page_count(), 0u);  // no page until the first record
}

TEST(HeapFile, FixedSizeRecordsFillPagesInOrder) {
  constexpr u32 kPage = 1024;
  constexpr u16 kLen = 100;
  constexpr u64 kCount = 10000;
  PageStore store(kPage);
  HeapFile<PageStore> heap(store);
  std::vector<RecordId> rids;
  for (u64 i = 0; i < kCount; ++i) {
    const auto rec = make_record(i, kLen);
    rids.push_back(heap.create(rec.data(), kLen));
    ASSERT_EQ(heap.record_count(), i + 1);
  }
  // A 100-byte record takes 104 bytes (aligned) and a 4-byte slot: record k
  // (from 1) starts at 1024 - 104k, which must be at or after ceil8(16 + 4k),
  // so 9 records a page (the 9th at 88 >= 56; a 10th would start below 0).
  PageModel model(kPage);
  u64 per_page = 0;
  while (model.fits(kLen)) {
    model.insert(kLen);
    ++per_page;
  }
  ASSERT_EQ(per_page, 9u);
  ASSERT_EQ(model.free_end, 1024u - 9 * 104);
  EXPECT_EQ(heap.page_count(), (kCount + per_page - 1) / per_page);
  EXPECT_EQ(store.page_count(), heap.page_count());
  for (u64 i = 0; i < kCount; ++i) {
    EXPECT_EQ(rids[i].slot, i % per_page) << i;
    if (i % per_page != 0) { EXPECT_EQ(rids[i].page, rids[i - 1].page) << i; }
    if (i > 0 && i % per_page == 0) { EXPECT_NE(rids[i].page, rids[i - 1].page) << i; }
  }
  std::set<u64> distinct;
  for (const RecordId& rid : rids) distinct.insert(rid.pack());
  EXPECT_EQ(distinct.size(), kCount);
  // Contents intact after all creations, at their aligned places.
  for (u64 i = 0; i < kCount; ++i) {
    const PinnedRecord pinned = heap.fix(rids[i]);
    ASSERT_EQ(offset_in(pinned.page, pinned.record), kPage - 104 * (i % per_page + 1)) << "record " << i;
    ASSERT_TRUE(record_matches(pinned.record, i, kLen)) << "record " << i;
    heap.unfix(rids[i], pinned);
  }
}

TEST(HeapFile, VariableLengthRecordsStayIntactAndForEachVisitsInOrder) {
  for (u32 page_size : {1024u, 8192u}) {
    PageStore store(page_size);
    HeapFile<PageStore> heap(store);
    Random rng(page_size);
    std::vector<RecordId> rids;
    std::vector<u16> lengths;
    for (u64 i = 0; i < 20000; ++i) {
      const u16 len = static_cast<u16>(rng.uniform(1, 300));
      const auto rec = make_record(i, len);
      rids.push_back(heap.create(rec.data(), len));
      lengths.push_back(len);
    }
    EXPECT_EQ(heap.record_count(), 20000u);
    EXPECT_GT(heap.page_count(), 100u);
    for (u64 i = 0; i < rids.size(); ++i) {
      ASSERT_TRUE(heap_record_matches(heap, rids[i], i, lengths[i])) << "record " << i;
      SlottedPage page(store.fix(rids[i].page));
      ASSERT_EQ(page.length(rids[i].slot), lengths[i]);
      store.unfix(rids[i].page);
    }
    size_t n = 0;
    heap.for_each([&](RecordId rid, std::byte* data) {
      ASSERT_LT(n, rids.size());
      EXPECT_EQ(rid, rids[n]) << "visit " << n;
      EXPECT_TRUE(record_matches(data, n, lengths[n])) << "visit " << n;
      ++n;
    });
    EXPECT_EQ(n, rids.size());
  }
}

// Records of odd lengths, in every page size a heap file takes: every record
// starts 8-byte aligned, in its page and in memory (the store's frames come
// from operator new[], aligned for any fundamental type), so rows can be read
// in place as structs.
TEST(HeapFile, RecordsAreAlignedInMemory) {
  for (const Geometry& g : kGeometries) {
    PageStore store(g.page_size);
    HeapFile<PageStore> heap(store);
    Random rng(g.page_size + 5);
    std::vector<RecordId> rids;
    std::vector<u16> lengths;
    for (u64 i = 0; i < 3000; ++i) {
      const u16 len = static_cast<u16>(rng.uniform(0, 150) * 2 + 1);  // odd, 1..301
      const auto rec = make_record(i, len);
      rids.push_back(heap.create(rec.data(), len));
      lengths.push_back(len);
    }
    for (u64 i = 0; i < rids.size(); ++i) {
      const PinnedRecord pinned = heap.fix(rids[i]);
      ASSERT_EQ(offset_in(pinned.page, pinned.record) % 8, 0u) << "page size " << g.page_size << ", record " << i;
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(pinned.record) % 8, 0u)
          << "page size " << g.page_size << ", record " << i;
      ASSERT_TRUE(record_matches(pinned.record, i, lengths[i])) << "page size " << g.page_size << ", record " << i;
      heap.unfix(rids[i], pinned);
    }
    size_t n = 0;
    heap.for_each([&](RecordId, std::byte* data) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % 8, 0u) << "page size " << g.page_size << ", visit " << n;
      ++n;
    });
    EXPECT_EQ(n, rids.size());
  }
}

TEST(HeapFile, InPlaceUpdateThroughFix) {
  PageStore store(1024);
  HeapFile<PageStore> heap(store);
  constexpr u16 kLen = 48;
  std::vector<RecordId> rids;
  for (u64 i = 0; i < 500; ++i) {
    const auto rec = make_record(i, kLen);
    rids.push_back(heap.create(rec.data(), kLen));
  }
  for (u64 i = 0; i < 500; i += 3) {
    const auto rec = make_record(i + 100000, kLen);
    const PinnedRecord pinned = heap.fix(rids[i], LatchMode::kExclusive);
    std::memcpy(pinned.record, rec.data(), kLen);
    heap.unfix(rids[i], pinned, LatchMode::kExclusive);
  }
  for (u64 i = 0; i < 500; ++i) {
    const u64 expect = i % 3 == 0 ? i + 100000 : i;
    ASSERT_TRUE(heap_record_matches(heap, rids[i], expect, kLen)) << i;
  }
  EXPECT_EQ(heap.record_count(), 500u);
}

TEST(HeapFile, HeapsSharingAPageStoreKeepTheirOwnRecords) {
  PageStore store(1024);
  HeapFile<PageStore> a(store), b(store);
  std::vector<RecordId> ra, rb;
  for (u64 i = 0; i < 3000; ++i) {
    const auto rec_a = make_record(i, 40);
    const auto rec_b = make_record(i + 50000, 70);
    ra.push_back(a.create(rec_a.data(), 40));
    if (i % 2 == 0) rb.push_back(b.create(rec_b.data(), 70));
  }
  EXPECT_EQ(store.page_count(), a.page_count() + b.page_count());
  std::set<PageId> pages_a, pages_b;
  for (const RecordId& r : ra) pages_a.insert(r.page);
  for (const RecordId& r : rb) pages_b.insert(r.page);
  for (PageId p : pages_a) EXPECT_EQ(pages_b.count(p), 0u) << "page " << p << " shared";
  size_t n = 0;
  a.for_each([&](RecordId rid, std::byte* data) {
    EXPECT_EQ(rid, ra[n]);
    EXPECT_TRUE(record_matches(data, n, 40));
    ++n;
  });
  EXPECT_EQ(n, ra.size());
  n = 0;
  b.for_each([&](RecordId rid, std::byte* data) {
    EXPECT_EQ(rid, rb[n]);
    EXPECT_TRUE(record_matches(data, 2 * n + 50000, 70));
    ++n;
  });
  EXPECT_EQ(n, rb.size());
}

TEST(HeapFile, RecordLargerThanAPageThrows) {
  for (u32 page_size : {1024u, 8192u, 65536u}) {
    const Geometry g = geometry(page_size);
    PageStore store(page_size);
    HeapFile<PageStore> heap(store);
    std::vector<std::byte> buf(65535, std::byte{1});
    EXPECT_THROW(heap.create(buf.data(), 65535), std::invalid_argument) << page_size;
    EXPECT_THROW(heap.create(buf.data(), static_cast<u16>(g.max_record + 1)), std::invalid_argument) << page_size;
    if (page_size < 65536) {
      EXPECT_THROW(heap.create(buf.data(), static_cast<u16>(page_size)), std::invalid_argument);
      EXPECT_THROW(heap.create(buf.data(), static_cast<u16>(page_size - 19)), std::invalid_argument);
    }
    EXPECT_EQ(heap.record_count(), 0u);
    EXPECT_EQ(heap.page_count(), 0u);
    EXPECT_EQ(store.page_count(), 0u);
    // A failed create on a non-empty file leaves the file usable.
    heap.create(buf.data(), 10);
    EXPECT_THROW(heap.create(buf.data(), 65535), std::invalid_argument);
    EXPECT_THROW(heap.create(buf.data(), static_cast<u16>(g.max_record + 1)), std::invalid_argument);
    EXPECT_EQ(heap.record_count(), 1u);
    EXPECT_EQ(heap.page_count(), 1u);
    const auto rec = make_record(9, 10);
    const RecordId rid = heap.create(rec.data(), 10);
    EXPECT_EQ(rid.slot, 1);
    EXPECT_TRUE(heap_record_matches(heap, rid, 9, 10));
  }
}

// Every record that create() accepts must come back intact, up to the largest
// record a page can take; exactly the records up to max_record are accepted.
// A small record comes first: a big record goes after it on its page when the
// layout rule lets it (lengths up to max_record - 8), on a new page otherwise.
TEST(HeapFile, LargestAcceptedRecordIsIntact) {
  for (u32 page_size : {1024u, 8192u, 32768u, 65536u}) {
    const Geometry g = geometry(page_size);
    for (u32 len = g.max_record - 17; len <= g.max_record + 9 && len <= 65535; ++len) {
      const std::string where = "page size " + std::to_string(page_size) + ", record " + std::to_string(len);
      PageStore store(page_size);
      HeapFile<PageStore> heap(store);
      const auto small = make_record(1, 4);
      heap.create(small.data(), 4);
      PageModel first(page_size);
      first.insert(4);
      const auto rec = make_record(len, len);
      if (len > g.max_record) {
        EXPECT_THROW(heap.create(rec.data(), static_cast<u16>(len)), std::invalid_argument) << where;
        EXPECT_EQ(heap.record_count(), 1u);
        EXPECT_EQ(heap.page_count(), 1u);
        continue;
      }
      RecordId rid;
      try {
        rid = heap.create(rec.data(), static_cast<u16>(len));
      } catch (const std::invalid_argument&) {
        ADD_FAILURE() << where << ": refused";
        continue;
      }
      // Where the rule puts it: after the small record, or alone on page 1.
      const bool shares = first.fits(len);
      EXPECT_EQ(shares, len <= g.max_record - 8) << where;
      PageModel model = shares ? first : PageModel(page_size);
      const u32 expected_offset = model.insert(len);
      EXPECT_EQ(rid.page, shares ? 0u : 1u) << where;
      EXPECT_EQ(rid.slot, shares ? 1 : 0) << where;
      EXPECT_EQ(heap.page_count(), shares ? 1u : 2u) << where;
      EXPECT_TRUE(heap_record_matches(heap, rid, len, len)) << where << ": accepted but corrupted";
      std::byte* const frame = store.fix(rid.page);
      SlottedPage page(frame);
      const u32 off = offset_in(frame, page.record(rid.slot));
      EXPECT_EQ(page.slot_count(), model.slots) << where;
      EXPECT_EQ(page.length(rid.slot), len) << where;
      EXPECT_EQ(off, expected_offset) << where;
      EXPECT_EQ(off % 8, 0u) << where;
      EXPECT_GE(off, kHeaderSize + page.slot_count() * kSlotSize) << where << ": overlaps the slot array";
      EXPECT_LE(off + len, g.area_end) << where;
      EXPECT_EQ(page.free_space(), model.free_space()) << where;
      store.unfix(rid.page);
      // The first record is intact too.
      EXPECT_TRUE(heap_record_matches(heap, RecordId{0, 0}, 1, 4)) << where;
    }
  }
}

TEST(HeapFile, LargestRecordPerPageSize) {
  // The header (16) + one slot (4), padded to 24 for alignment, + the record
  // fill the record area, which on 64 KB pages ends at 0xFFF8.
  for (const Geometry& g : kGeometries) {
    PageStore store(g.page_size);
    HeapFile<PageStore> heap(store);
    const u32 max_len = g.max_record;
    ASSERT_EQ(SlottedPage::max_record(g.page_size), max_len);
    const auto rec = make_record(77, max_len + 1);
    EXPECT_THROW(heap.create(rec.data(), static_cast<u16>(max_len + 1)), std::invalid_argument) << g.page_size;
    EXPECT_EQ(heap.page_count(), 0u);
    const RecordId a = heap.create(rec.data(), static_cast<u16>(max_len));
    const RecordId b = heap.create(rec.data(), static_cast<u16>(max_len));
    EXPECT_THROW(heap.create(rec.data(), static_cast<u16>(max_len + 1)), std::invalid_argument) << g.page_size;
    EXPECT_NE(a.page, b.page);
    EXPECT_EQ(heap.page_count(), 2u);
    EXPECT_EQ(heap.record_count(), 2u);
    for (const RecordId& rid : {a, b}) {
      const PinnedRecord pinned = heap.fix(rid);
      EXPECT_EQ(offset_in(pinned.page, pinned.record), 24u) << g.page_size;
      EXPECT_TRUE(record_matches(pinned.record, 77, max_len)) << g.page_size;
      EXPECT_EQ(SlottedPage(pinned.page).free_space(), 4u) << g.page_size;
      heap.unfix(rid, pinned);
    }
  }
}

// With a buffer pool behind the Pages interface every fix pins a page until
// its unfix; HeapFile must leave no page pinned after its own operations.
TEST(PinBalance, HeapFileCreate) {
  CountingPages pages(1024);
  HeapFile<CountingPages> heap(pages);
  const auto rec = make_record(0, 100);
  heap.create(rec.data(), 100);  // first record: allocates a page
  EXPECT_EQ(pages.outstanding(), 0) << "pins left after the first create (new page)";
  heap.create(rec.data(), 100);  // fits in the current page
  EXPECT_EQ(pages.outstanding(), 0) << "pins left after a create into the current page";
  for (int i = 0; i < 100; ++i) heap.create(rec.data(), 100);
  EXPECT_EQ(pages.outstanding(), 0) << "pins left after 100 more creates";
  EXPECT_THROW(heap.create(rec.data(), static_cast<u16>(SlottedPage::max_record(1024) + 1)), std::invalid_argument);
  EXPECT_EQ(pages.outstanding(), 0) << "pins left after a refused create";
  EXPECT_FALSE(pages.any_negative());
  EXPECT_FALSE(pages.wrong_page());
}

TEST(PinBalance, HeapFileForEachAndFix) {
  CountingPages pages(1024);
  HeapFile<CountingPages> heap(pages);
  const auto rec = make_record(0, 100);
  std::vector<RecordId> rids;
  for (int i = 0; i < 50; ++i) rids.push_back(heap.create(rec.data(), 100));
  const long before = pages.outstanding();
  heap.for_each([](RecordId, std::byte*) {});
  EXPECT_EQ(pages.outstanding(), before) << "for_each leaves pins";
  for (const RecordId& rid : rids) {
    heap.unfix(rid, heap.fix(rid));
    const PinnedRecord pinned = heap.fix(rid, LatchMode::kExclusive);
    EXPECT_EQ(pages.outstanding(), before + 1);
    heap.unfix(rid, pinned, LatchMode::kExclusive);
  }
  EXPECT_EQ(pages.outstanding(), before) << "fix/unfix of a record leaves pins";
  EXPECT_FALSE(pages.any_negative());
  EXPECT_FALSE(pages.wrong_page());
}

}  // namespace
}  // namespace dbrepro
