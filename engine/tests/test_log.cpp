// Tests of the write-ahead log (log/log_record.hpp, log_buffer.hpp,
// write_ahead_log.hpp): with FlushToFile, commit writes exactly the bytes
// appended since the last flush and syncs once; records carry their LSN (the
// byte offset) and chain per transaction through prev_lsn; an update record
// holds only the changed byte range, before and after; the buffer wraps
// around; NeverFlush writes nothing, NoLog does nothing; PageLsn stamps at
// byte 8 and never lowers the LSN.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "btree/node.hpp"
#include "common/temp_file.hpp"
#include "log/write_ahead_log.hpp"
#include "storage/slotted_page.hpp"

namespace dbrepro {
namespace {

// A fresh path in $TMPDIR (or /tmp), removed afterwards.
struct TempPath {
  TempPath() : path(make_temp_file(temp_base(), "dbrepro-test-wal-")) {}
  ~TempPath() { ::unlink(path.c_str()); }
  std::string path;
};

// The log's records: the file after its header (which must be format 2's).
std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (chars.size() < sizeof(LogFileHeader)) {
    ADD_FAILURE() << path << ": " << chars.size() << " bytes, no log file header";
    return {};
  }
  LogFileHeader header;
  std::memcpy(&header, chars.data(), sizeof(header));
  EXPECT_EQ(header.magic, kLogMagic);
  EXPECT_EQ(header.format, kLogFormat);
  EXPECT_TRUE(log_file_header_valid(header));
  std::vector<std::byte> bytes(chars.size() - sizeof(header));
  if (!bytes.empty()) std::memcpy(bytes.data(), chars.data() + sizeof(header), bytes.size());
  return bytes;
}

// Bytes of log records in the file (its header not counted); -1: no file.
long file_size(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_size) - static_cast<long>(sizeof(LogFileHeader))
                                        : -1;
}

struct Record {
  LogRecordHeader header;
  std::vector<std::byte> payload;
};

// Parses a log image; every record must start where the previous one ended.
::testing::AssertionResult parse(const std::vector<std::byte>& log, std::vector<Record>& out, Lsn base = 0) {
  size_t at = 0;
  while (at < log.size()) {
    if (log.size() - at < sizeof(LogRecordHeader))
      return ::testing::AssertionFailure() << "truncated header at " << at;
    Record r;
    std::memcpy(&r.header, log.data() + at, sizeof(LogRecordHeader));
    if (r.header.lsn != base + at)
      return ::testing::AssertionFailure() << "record at offset " << at << " has LSN " << r.header.lsn;
    if (r.header.header_crc != log_header_checksum(r.header))
      return ::testing::AssertionFailure() << "record at offset " << at << ": header checksum mismatch";
    at += sizeof(LogRecordHeader);
    if (log.size() - at < r.header.length) return ::testing::AssertionFailure() << "truncated payload at " << at;
    r.payload.assign(log.begin() + static_cast<long>(at), log.begin() + static_cast<long>(at + r.header.length));
    if (r.header.payload_crc != crc32c(r.payload.data(), r.payload.size()))
      return ::testing::AssertionFailure() << "record at offset " << at << ": payload checksum mismatch";
    at += r.header.length;
    out.push_back(std::move(r));
  }
  return ::testing::AssertionSuccess();
}

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

using FileLog = WriteAheadLog<FlushToFile, NoLatching>;

TEST(WriteAheadLog, CommitWritesExactlyTheAppendedBytesAndSyncs) {
  TempPath file;
  FileLog log(file.path);
  Transaction t;
  t.reset(7);
  const std::string row = "a row of forty-two bytes, give or take...";
  const Lsn first = log.log_create(&t, 3, RecordId{5, 2}, row.data(), row.size());
  EXPECT_EQ(first, 0u) << "the first record is at offset 0";
  const Lsn second = log.log_index_insert(&t, 3, 0xABCDEF, RecordId{5, 2}.pack());
  EXPECT_EQ(second, sizeof(LogRecordHeader) + row.size());
  EXPECT_EQ(file_size(file.path), 0) << "written before commit";
  EXPECT_EQ(log.bytes_written(), 0u);
  EXPECT_EQ(log.syncs(), 0u);

  log.commit(&t);
  const Lsn end = log.end_lsn();
  EXPECT_EQ(end, 3 * sizeof(LogRecordHeader) + row.size() + 2 * sizeof(u64));
  EXPECT_EQ(log.bytes_written(), end);
  EXPECT_EQ(log.syncs(), 1u) << "one sync per commit";
  const std::vector<std::byte> image = read_file(file.path);
  ASSERT_EQ(image.size(), end);

  std::vector<Record> records;
  ASSERT_TRUE(parse(image, records));
  ASSERT_EQ(records.size(), 3u);
  const LogRecordHeader& c = records[0].header;
  EXPECT_EQ(c.type, LogType::kCreate);
  EXPECT_EQ(c.txn_id, 7u);
  EXPECT_EQ(c.table, 3u);
  EXPECT_EQ(c.page, 5u);
  EXPECT_EQ(c.slot, 2u);
  EXPECT_EQ(records[0].payload, bytes_of(row));
  const LogRecordHeader& ins = records[1].header;
  EXPECT_EQ(ins.type, LogType::kIndexInsert);
  ASSERT_EQ(records[1].payload.size(), 16u);
  u64 entry[2];
  std::memcpy(entry, records[1].payload.data(), sizeof(entry));
  EXPECT_EQ(entry[0], 0xABCDEFu);
  EXPECT_EQ(entry[1], (RecordId{5, 2}.pack()));
  EXPECT_EQ(records[2].header.type, LogType::kCommit);
  EXPECT_EQ(records[2].header.length, 0u);
  EXPECT_EQ(records[2].header.txn_id, 7u);

  // A second transaction: only its bytes are added, with one more sync.
  Transaction u;
  u.reset(8);
  log.log_create(&u, 1, RecordId{9, 0}, "xyz", 3);
  log.commit(&u);
  EXPECT_EQ(log.syncs(), 2u);
  EXPECT_EQ(log.bytes_written(), log.end_lsn());
  EXPECT_EQ(static_cast<Lsn>(file_size(file.path)), log.end_lsn());
  std::vector<Record> all;
  ASSERT_TRUE(parse(read_file(file.path), all));
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[3].header.txn_id, 8u);
  EXPECT_EQ(all[4].header.type, LogType::kCommit);
}

TEST(WriteAheadLog, RecordsChainPerTransaction) {
  TempPath file;
  FileLog log(file.path);
  Transaction a, b;
  a.reset(1);
  b.reset(2);
  const Lsn a1 = log.log_create(&a, 1, RecordId{1, 0}, "aaaa", 4);
  EXPECT_EQ(a.first_lsn, a1 + 1) << "first_lsn is the first record's LSN + 1 (0 means none)";
  EXPECT_EQ(a.last_lsn, a1);
  const Lsn b1 = log.log_create(&b, 1, RecordId{1, 1}, "bbbbbbbb", 8);
  const Lsn a2 = log.log_index_insert(&a, 1, 10, 20);
  const Lsn b2 = log.log_index_insert(&b, 1, 11, 21);
  const Lsn a3 = log.log_create(&a, 2, RecordId{2, 0}, "c", 1);
  EXPECT_EQ(a.first_lsn, a1 + 1);
  EXPECT_EQ(a.last_lsn, a3);
  EXPECT_EQ(b.first_lsn, b1 + 1);
  log.commit(&a);
  log.abort(&b);
  EXPECT_EQ(log.syncs(), 1u) << "an abort does not force the log";
  Transaction c;
  c.reset(3);
  log.commit(&c);  // flushes b's abort record too
  EXPECT_EQ(log.syncs(), 2u);
  EXPECT_EQ(log.bytes_written(), log.end_lsn());

  std::vector<Record> records;
  ASSERT_TRUE(parse(read_file(file.path), records));
  ASSERT_EQ(records.size(), 8u);
  // Walk each transaction's chain backwards from its last record.
  std::map<u64, std::vector<Lsn>> by_txn;
  std::map<Lsn, const LogRecordHeader*> at;
  for (const Record& r : records) {
    by_txn[r.header.txn_id].push_back(r.header.lsn);
    at[r.header.lsn] = &r.header;
  }
  EXPECT_EQ(by_txn[1], (std::vector<Lsn>{a1, a2, a3, records[5].header.lsn}));
  EXPECT_EQ(by_txn[2], (std::vector<Lsn>{b1, b2, records[6].header.lsn}));
  for (const auto& [txn, lsns] : by_txn) {
    for (size_t i = 1; i < lsns.size(); ++i)
      EXPECT_EQ(at[lsns[i]]->prev_lsn, lsns[i - 1]) << "txn " << txn << " record " << i;
  }
  EXPECT_EQ(at[a1]->prev_lsn, 0u);
  EXPECT_EQ(at[b1]->prev_lsn, 0u);
  EXPECT_EQ(records[5].header.type, LogType::kCommit);
  EXPECT_EQ(records[6].header.type, LogType::kAbort);
  EXPECT_EQ(records[7].header.txn_id, 3u);
  EXPECT_EQ(records[7].header.prev_lsn, 0u) << "a transaction without records has no predecessor";
}

TEST(WriteAheadLog, UpdateRecordHoldsOnlyTheChangedRange) {
  TempPath file;
  FileLog log(file.path);
  Transaction t;
  t.reset(5);
  std::vector<std::byte> row(200);
  for (size_t i = 0; i < row.size(); ++i) row[i] = static_cast<std::byte>(i);

  // Bytes 50..59 change.
  log.before_update(&t, row.data(), row.size());
  for (size_t i = 50; i < 60; ++i) row[i] = static_cast<std::byte>(0xF0);
  log.log_update(&t, 4, RecordId{12, 3}, row.data(), row.size());
  // Only the first and the last byte change: the range spans the row.
  log.before_update(&t, row.data(), row.size());
  row[0] = std::byte{0xAA};
  row[199] = std::byte{0xBB};
  log.log_update(&t, 4, RecordId{12, 3}, row.data(), row.size());
  // A single byte in the middle, and a change that changes nothing.
  log.before_update(&t, row.data(), row.size());
  row[100] = std::byte{0x11};
  log.log_update(&t, 4, RecordId{12, 3}, row.data(), row.size());
  log.before_update(&t, row.data(), row.size());
  log.log_update(&t, 4, RecordId{12, 3}, row.data(), row.size());
  log.commit(&t);

  std::vector<Record> records;
  ASSERT_TRUE(parse(read_file(file.path), records));
  ASSERT_EQ(records.size(), 5u);
  struct Expect {
    u16 offset;
    u32 range;
  };
  const Expect expect[] = {{50, 10}, {0, 200}, {100, 1}};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const Record& r = records[i];
    EXPECT_EQ(r.header.type, LogType::kUpdate);
    EXPECT_EQ(r.header.table, 4u);
    EXPECT_EQ(r.header.page, 12u);
    EXPECT_EQ(r.header.slot, 3u);
    EXPECT_EQ(r.header.offset, expect[i].offset);
    ASSERT_EQ(r.header.length, 2 * expect[i].range) << "before and after images of the changed range only";
  }
  // Before and after images of the first update.
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(records[0].payload[i], static_cast<std::byte>(50 + i)) << "before image byte " << i;
    EXPECT_EQ(records[0].payload[10 + i], std::byte{0xF0}) << "after image byte " << i;
  }
  // Second: before = original byte 0 ... after = 0xAA ... 0xBB.
  EXPECT_EQ(records[1].payload[0], std::byte{0});
  EXPECT_EQ(records[1].payload[199], static_cast<std::byte>(199));
  EXPECT_EQ(records[1].payload[200], std::byte{0xAA});
  EXPECT_EQ(records[1].payload[399], std::byte{0xBB});
  EXPECT_EQ(records[1].payload[250], std::byte{0xF0}) << "unchanged bytes inside the range keep their value";
  EXPECT_EQ(records[2].payload[0], static_cast<std::byte>(100));
  EXPECT_EQ(records[2].payload[1], std::byte{0x11});
  // No change: an empty range.
  EXPECT_EQ(records[3].header.type, LogType::kUpdate);
  EXPECT_EQ(records[3].header.length, 0u);
  EXPECT_EQ(records[4].header.type, LogType::kCommit);
}

TEST(WriteAheadLog, LogBufferWrapsAround) {
  // More than the 4 MB buffer, over many commits: the file gets every byte,
  // in order, across the wrap points.
  TempPath file;
  FileLog log(file.path);
  static_assert(LogBuffer<FlushToFile, NoLatching>::kCapacity == 4u << 20);
  std::vector<std::byte> payload(3000);
  u64 commits = 0, records = 0;
  Transaction t;
  for (u64 txn = 1; log.end_lsn() < (6u << 20) + 12345; ++txn) {
    t.reset(txn);
    const int n = 1 + static_cast<int>(txn % 37);  // up to ~110 KB per transaction
    for (int i = 0; i < n; ++i) {
      for (size_t k = 0; k < payload.size(); k += 97) payload[k] = static_cast<std::byte>(txn * 31 + i + k);
      const size_t len = 100 + (txn * 7919 + i * 13) % 2900;
      log.log_create(&t, static_cast<u16>(i), RecordId{static_cast<PageId>(txn), static_cast<u16>(i)}, payload.data(),
                     len);
      ++records;
    }
    log.commit(&t);
    ++commits;
  }
  EXPECT_GT(log.end_lsn(), 6u << 20);
  EXPECT_EQ(log.bytes_written(), log.end_lsn());
  EXPECT_EQ(log.syncs(), commits);
  EXPECT_EQ(static_cast<Lsn>(file_size(file.path)), log.end_lsn()) << "file size differs from the bytes appended";
  std::vector<Record> parsed;
  ASSERT_TRUE(parse(read_file(file.path), parsed));
  EXPECT_EQ(parsed.size(), records + commits);
  // Spot-check payload bytes of records on both sides of the wrap points.
  size_t checked = 0;
  for (const Record& r : parsed) {
    if (r.header.type != LogType::kCreate) continue;
    const u64 txn = r.header.txn_id;
    const int i = r.header.slot;
    EXPECT_EQ(r.header.page, static_cast<PageId>(txn));
    ASSERT_EQ(r.header.length, 100 + (txn * 7919 + i * 13) % 2900);
    for (size_t k = 0; k < r.payload.size(); k += 97) {
      ASSERT_EQ(r.payload[k], static_cast<std::byte>(txn * 31 + i + k)) << "txn " << txn << " record " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 50000u);
}

TEST(WriteAheadLog, OneTransactionLargerThanTheBufferIsWrittenWhole) {
  // More than the 4 MB buffer before one commit (many terminals can log that
  // much between two commits): append writes out what it would overwrite,
  // and commit syncs once.
  TempPath file;
  FileLog log(file.path);
  Transaction t;
  t.reset(1);
  std::vector<std::byte> big(64 << 10);
  for (int i = 0; i < 70; ++i) {
    big[0] = static_cast<std::byte>(i);
    log.log_create(&t, 0, RecordId{0, static_cast<u16>(i)}, big.data(), big.size());  // ~4.4 MB
  }
  log.commit(&t);
  EXPECT_EQ(log.syncs(), 1u);
  std::vector<Record> records;
  ASSERT_TRUE(parse(read_file(file.path), records));
  ASSERT_EQ(records.size(), 71u);
  for (int i = 0; i < 70; ++i) EXPECT_EQ(records[i].payload[0], static_cast<std::byte>(i)) << "record " << i;
  EXPECT_EQ(records[70].header.type, LogType::kCommit);
}

TEST(WriteAheadLog, UnwritableLogFileThrows) {
  EXPECT_THROW(FileLog("/nonexistent-dir/dbrepro/log"), std::runtime_error);
}

TEST(WriteAheadLog, ConcurrentAppendersWithLatching) {
  TempPath file;
  WriteAheadLog<FlushToFile, Latching> log(file.path);
  constexpr int kThreads = 4, kTxns = 40, kRecords = 25;
  std::vector<std::thread> pool;
  for (int th = 0; th < kThreads; ++th) {
    pool.emplace_back([&, th] {
      Transaction t;
      char row[64];
      for (int n = 0; n < kTxns; ++n) {
        t.reset(static_cast<u64>(th) * 1000 + n + 1);
        for (int r = 0; r < kRecords; ++r) {
          std::memset(row, 'a' + th, sizeof(row));
          log.log_create(&t, static_cast<u16>(th), RecordId{static_cast<PageId>(n), static_cast<u16>(r)}, row,
                         static_cast<size_t>(8 + r));
        }
        log.commit(&t);
      }
    });
  }
  for (auto& t : pool) t.join();
  EXPECT_EQ(log.bytes_written(), log.end_lsn());
  EXPECT_EQ(static_cast<Lsn>(file_size(file.path)), log.end_lsn());
  EXPECT_LE(log.syncs(), static_cast<u64>(kThreads * kTxns));
  EXPECT_GE(log.syncs(), 1u);
  std::vector<Record> records;
  ASSERT_TRUE(parse(read_file(file.path), records)) << "interleaved appends corrupted the log";
  ASSERT_EQ(records.size(), static_cast<size_t>(kThreads * kTxns * (kRecords + 1)));
  // Each transaction's chain is intact and its payloads are its own.
  std::map<u64, Lsn> last;
  std::map<u64, int> count;
  for (const Record& r : records) {
    const u64 txn = r.header.txn_id;
    if (count[txn] > 0) {
      EXPECT_EQ(r.header.prev_lsn, last[txn]) << "txn " << txn;
    }
    last[txn] = r.header.lsn;
    ++count[txn];
    if (r.header.type == LogType::kCreate) {
      const char expect = static_cast<char>('a' + r.header.table);
      ASSERT_EQ(r.header.length, 8u + r.header.slot);
      for (std::byte b : r.payload) ASSERT_EQ(static_cast<char>(b), expect);
    }
  }
  EXPECT_EQ(count.size(), static_cast<size_t>(kThreads * kTxns));
  for (const auto& [txn, n] : count) EXPECT_EQ(n, kRecords + 1) << "txn " << txn;
}

// ---------------------------------------------------------------------------
// The removed forms.

TEST(WriteAheadLog, NeverFlushPreparesRecordsButWritesNothing) {
  TempPath file;
  ::unlink(file.path.c_str());
  WriteAheadLog<NeverFlush, NoLatching> log(file.path);
  Transaction t;
  for (u64 n = 1; n <= 2000; ++n) {  // > 4 MB: the buffer wraps, never flushed
    t.reset(n);
    std::vector<std::byte> row(2500, std::byte{1});
    log.log_create(&t, 1, RecordId{1, 1}, row.data(), row.size());
    log.commit(&t);
  }
  EXPECT_GT(log.end_lsn(), 4u << 20) << "the records were not prepared";
  EXPECT_EQ(log.bytes_written(), 0u);
  EXPECT_EQ(log.syncs(), 0u);
  EXPECT_EQ(file_size(file.path), -1) << "NeverFlush created a file";
  EXPECT_EQ(t.last_lsn + sizeof(LogRecordHeader), log.end_lsn()) << "the commit record is the last";
}

TEST(WriteAheadLog, NoLogDoesNothing) {
  NoLog log("/nonexistent-dir/ignored");
  Transaction t;
  t.reset(1);
  std::byte row[16]{};
  log.before_update(&t, row, sizeof(row));
  EXPECT_EQ(log.log_update(&t, 1, RecordId{1, 1}, row, sizeof(row)), 0u);
  EXPECT_EQ(log.log_create(&t, 1, RecordId{1, 1}, row, sizeof(row)), 0u);
  EXPECT_EQ(log.log_index_insert(&t, 1, 2, 3), 0u);
  log.commit(&t);
  log.abort(&t);
  EXPECT_EQ(log.end_lsn(), 0u);
  EXPECT_EQ(log.bytes_written(), 0u);
  EXPECT_EQ(log.syncs(), 0u);
  EXPECT_EQ(t.first_lsn, 0u);
  EXPECT_EQ(t.last_lsn, 0u);
  EXPECT_TRUE(t.undo.empty()) << "NoLog kept an undo list";
  static_assert(std::is_empty_v<NoLog>);
}

// ---------------------------------------------------------------------------
// Page LSNs.

TEST(PageLsn, StampsAtOffsetEightAndNeverLowers) {
  static_assert(offsetof(NodeHeader, lsn) == PageLsn::kOffset, "B+tree nodes keep the LSN at byte 8");
  static_assert(offsetof(SlottedPageHeader, reserved) == PageLsn::kOffset, "slotted pages keep the LSN at byte 8");
  std::byte page[64];
  std::memset(page, 0x5A, sizeof(page));
  std::memset(page + 8, 0, 8);
  auto lsn_of = [&] {
    Lsn v;
    std::memcpy(&v, page + 8, sizeof(v));
    return v;
  };
  PageLsn::stamp(page, 1000);
  EXPECT_EQ(lsn_of(), 1000u);
  PageLsn::stamp(page, 999);
  EXPECT_EQ(lsn_of(), 1000u) << "a stamp lowered the page LSN";
  PageLsn::stamp(page, 1000);
  EXPECT_EQ(lsn_of(), 1000u);
  PageLsn::stamp(page, u64{1} << 40);
  EXPECT_EQ(lsn_of(), u64{1} << 40);
  PageLsn::stamp(page, 0);
  EXPECT_EQ(lsn_of(), u64{1} << 40);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(page[i], std::byte{0x5A}) << "byte " << i << " changed";
  for (int i = 16; i < 64; ++i) EXPECT_EQ(page[i], std::byte{0x5A}) << "byte " << i << " changed";

  // On a real node and a real slotted page.
  alignas(8) std::byte node_page[1024]{};
  Node node(node_page, Node::capacity_for(1024));
  node.init(true);
  PageLsn::stamp(node_page, 77);
  EXPECT_EQ(node.header().lsn, 77u);
  EXPECT_TRUE(node.is_leaf());
  EXPECT_EQ(node.count(), 0u);
  alignas(8) std::byte heap_page[1024]{};
  SlottedPage slotted(heap_page);
  slotted.init(1024);
  const u16 slot = slotted.insert("record", 6);
  PageLsn::stamp(heap_page, 88);
  Lsn heap_lsn;
  std::memcpy(&heap_lsn, heap_page + 8, sizeof(heap_lsn));
  EXPECT_EQ(heap_lsn, 88u);
  EXPECT_EQ(slotted.slot_count(), 1u);
  EXPECT_EQ(std::memcmp(slotted.record(slot), "record", 6), 0) << "the stamp damaged the page";

  // NoLsn leaves the page alone.
  NoLsn::stamp(node_page, 12345);
  EXPECT_EQ(node.header().lsn, 77u);
}

}  // namespace
}  // namespace dbrepro
