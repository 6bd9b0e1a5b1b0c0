#pragma once
// E1's "page access" switch, the removed form of record storage: what the
// looking-glass authors put in place of Shore's space manager. Each record
// is its own block from malloc, and its record id is its number in a thin
// map from record number to block (no page to find, fix, format or update).
// Same interface as HeapFile; there is no page, so PinnedRecord::page is
// null (stacks without page access have no page LSNs either). Single-
// threaded stacks only: fix reads the map without the latch.
#include <cstdlib>
#include <cstring>
#include <new>
#include <unordered_set>
#include <vector>

#include "latch/latch.hpp"
#include "storage/heap_file.hpp"
#include "storage/record_id.hpp"

namespace dbrepro {

template <class Latching = NoLatching>
class MallocHeap {
 public:
  MallocHeap() = default;
  template <class Pages>
  explicit MallocHeap(Pages&) {}
  MallocHeap(const MallocHeap&) = delete;
  MallocHeap& operator=(const MallocHeap&) = delete;
  ~MallocHeap() {
    for (std::byte* record : records_) std::free(record);
  }

  template <class OnCreated>
  RecordId create(const void* data, u16 length, OnCreated&& on_created) {
    auto* record = static_cast<std::byte*>(std::malloc(length > 0 ? length : 1));
    if (record == nullptr) throw std::bad_alloc();
    if (length > 0) std::memcpy(record, data, length);
    LatchGuard guard(latch_);  // the map is shared
    const u64 number = records_.size();
    records_.push_back(record);
    bytes_ += length;
    const RecordId rid = id_of(number);
    on_created(rid, nullptr);
    ++live_;
    return rid;
  }
  RecordId create(const void* data, u16 length) {
    return create(data, length, [](RecordId, std::byte*) {});
  }

  PinnedRecord fix(RecordId rid, LatchMode = LatchMode::kShared) { return PinnedRecord{nullptr, records_[number_of(rid)]}; }
  void unfix(RecordId, const PinnedRecord&, LatchMode = LatchMode::kShared) {}

  template <class Fn>
  void for_each(Fn&& fn) {
    for (u64 n = 0; n < records_.size(); ++n)
      if (dead_.empty() || !dead_.contains(n)) fn(id_of(n), records_[n]);
  }

  void erase(RecordId rid) {
    LatchGuard guard(latch_);
    if (dead_.insert(number_of(rid)).second) --live_;
  }
  void restore(RecordId rid) {
    LatchGuard guard(latch_);
    if (dead_.erase(number_of(rid)) > 0) ++live_;
  }
  bool live(RecordId rid) {
    LatchGuard guard(latch_);
    return !dead_.contains(number_of(rid));
  }

  u64 record_count() const { return live_; }
  size_t page_count() const { return 0; }
  u64 bytes_outside_pages() const { return bytes_; }

 private:
  // A record number is a packed record id (page: its high bits).
  static RecordId id_of(u64 number) { return RecordId::unpack(number); }
  static u64 number_of(RecordId rid) { return rid.pack(); }

  typename Latching::Mutex latch_;
  std::vector<std::byte*> records_;
  u64 live_ = 0;
  u64 bytes_ = 0;  // of all records created
  std::unordered_set<u64> dead_;
};

}  // namespace dbrepro
