#include "sysbench/sbtest.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/random.hpp"

namespace dbrepro::sysbench {

namespace {
constexpr u64 kMagic = 0x5342544553543033ull;  // "SBTEST03": indexes in the engine's B-tree layout
constexpr u32 kMetaBlock = 0;

// sysbench's sb_rand_str: '#' becomes a random digit, other characters stay.
void digits_template(Random& rng, char* out, size_t capacity, int groups) {
  std::memset(out, ' ', capacity);  // CHAR(n) pads with spaces
  size_t pos = 0;
  for (int g = 0; g < groups; ++g) {
    if (g > 0) out[pos++] = '-';
    for (int i = 0; i < 11; ++i) out[pos++] = static_cast<char>('0' + rng.uniform(0, 9));
  }
}

// The pages bulk_load writes: blocks of the index file, handed out in order
// and written when unfixed.
class IndexFileWriter {
 public:
  IndexFileWriter(BlockFile& file, u32 first_block) : file_(file), next_(first_block) {}
  u32 page_size() const { return file_.block_size(); }
  PageId allocate() { return next_++; }
  std::byte* fix(PageId, LatchMode) {
    buffers_.push_back(std::make_unique<std::byte[]>(file_.block_size()));  // zero-filled
    return buffers_.back().get();
  }
  void unfix(PageId block, std::byte* page, LatchMode) {
    file_.write(block, page);
    std::erase_if(buffers_, [&](const auto& b) { return b.get() == page; });
  }
  u32 next_block() const { return next_; }

 private:
  BlockFile& file_;
  u32 next_;
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
};

std::string data_path(const std::string& dir) { return dir + "/sbtest.MYD"; }
std::string index_path(const std::string& dir) { return dir + "/sbtest.MYI"; }
}  // namespace

SbtestRow make_row(u64 id, u64 rows, u64 seed, KeyDistribution distribution) {
  Random rng(seed * 1000003 + id);
  SbtestRow row{};
  row.id = static_cast<u32>(id);
  row.k = distribution == KeyDistribution::kIdentity ? static_cast<u32>(id) : draw_key(rng, distribution, rows);
  digits_template(rng, row.c, sizeof row.c, 10);   // 119 characters
  digits_template(rng, row.pad, sizeof row.pad, 5);  // 59 characters
  return row;
}

SbtestMeta build_sbtest(const std::string& dir, u64 rows, u64 seed, u32 block_size, KeyDistribution distribution) {
  if (rows < 1 || rows > 0xFFFFFFF0ull) throw std::invalid_argument("rows: must be in 1..4294967280");
  const int data_fd = ::open(data_path(dir).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (data_fd < 0) throw std::runtime_error("cannot create " + data_path(dir) + ": " + std::strerror(errno));
  std::vector<BulkEntry> k_entries, id_entries;
  k_entries.reserve(rows);
  id_entries.reserve(rows);
  std::vector<SbtestRow> batch;
  batch.reserve(4096);
  auto flush = [&] {
    const size_t bytes = batch.size() * sizeof(SbtestRow);
    if (::write(data_fd, batch.data(), bytes) != static_cast<ssize_t>(bytes)) {
      ::close(data_fd);
      throw std::runtime_error("cannot write " + data_path(dir));
    }
    batch.clear();
  };
  for (u64 id = 1; id <= rows; ++id) {
    const SbtestRow row = make_row(id, rows, seed, distribution);
    const u32 position = static_cast<u32>(id - 1);
    k_entries.push_back({k_index_key(row.k, static_cast<u32>(id)), position});
    id_entries.push_back({id, position});
    batch.push_back(row);
    if (batch.size() == batch.capacity()) flush();
  }
  flush();
  ::close(data_fd);
  std::sort(k_entries.begin(), k_entries.end(), [](const BulkEntry& a, const BulkEntry& b) { return a.key < b.key; });

  BlockFile index(index_path(dir), block_size, true);
  SbtestMeta meta;
  meta.magic = kMagic;
  meta.rows = rows;
  meta.seed = seed;
  meta.block_size = block_size;
  meta.distribution = distribution;
  IndexFileWriter writer(index, kMetaBlock + 1);
  meta.id_index = bulk_load(writer, id_entries);
  meta.k_index = bulk_load(writer, k_entries);
  meta.index_blocks = writer.next_block();
  std::vector<std::byte> block(block_size);
  std::memcpy(block.data(), &meta, sizeof meta);
  index.write(kMetaBlock, block.data());
  return meta;
}

SbtestTable::SbtestTable(const std::string& dir) {
  // The block size is in the metadata: read it with a small first read.
  {
    BlockFile probe(index_path(dir), 512, false);
    std::vector<std::byte> block(512);
    probe.read(kMetaBlock, block.data());
    std::memcpy(&meta_, block.data(), sizeof meta_);
  }
  if (meta_.magic != kMagic)
    throw std::runtime_error(index_path(dir) + ": not an sbtest index file of this version (rebuild it)");
  index_ = BlockFile(index_path(dir), meta_.block_size, false);
  data_fd_ = ::open(data_path(dir).c_str(), O_RDONLY);
  if (data_fd_ < 0) throw std::runtime_error("cannot open " + data_path(dir) + ": " + std::strerror(errno));
}

SbtestTable::~SbtestTable() {
  if (data_fd_ >= 0) ::close(data_fd_);
}

void SbtestTable::read_row(u32 position, SbtestRow* row) const {
  const off_t offset = static_cast<off_t>(u64{position} * sizeof(SbtestRow));
  if (::pread(data_fd_, row, sizeof *row, offset) != static_cast<ssize_t>(sizeof *row))
    throw std::runtime_error("short read of row " + std::to_string(position));
}

}  // namespace dbrepro::sysbench
