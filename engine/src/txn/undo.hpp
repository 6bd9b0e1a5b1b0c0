#pragma once
// The undo list of one transaction: an entry per change, with the row's
// before-image for updates. Abort walks it backwards and reverts each change
// (logging a compensation record for each, so that recovery repeats it).
#include <cstring>
#include <vector>

#include "common/types.hpp"
#include "storage/record_id.hpp"

namespace dbrepro {

enum class UndoKind : u8 { kUpdate, kCreate, kIndexInsert, kIndexErase };

struct UndoEntry {
  UndoKind kind;
  u16 table;
  RecordId rid;      // kUpdate, kCreate
  u64 key = 0;       // kIndexInsert, kIndexErase
  u64 value = 0;     // kIndexInsert, kIndexErase: the entry's value
  u32 image_at = 0;  // kUpdate: the before-image in UndoList::images
  u32 length = 0;
};

class UndoList {
 public:
  void clear() {
    entries_.clear();
    images_.clear();
  }

  // Copies the whole row before an update (the image the update's log
  // record is computed against); push_update then names the row.
  const std::byte* stage_image(const std::byte* row, size_t length) {
    staged_at_ = images_.size();
    images_.insert(images_.end(), row, row + length);
    return images_.data() + staged_at_;
  }
  const std::byte* staged_image() const { return images_.data() + staged_at_; }
  void push_update(u16 table, RecordId rid, size_t length) {
    entries_.push_back(
        UndoEntry{UndoKind::kUpdate, table, rid, 0, 0, static_cast<u32>(staged_at_), static_cast<u32>(length)});
  }
  void push_create(u16 table, RecordId rid) { entries_.push_back(UndoEntry{UndoKind::kCreate, table, rid}); }
  void push_index_insert(u16 table, u64 key, u64 value) {
    entries_.push_back(UndoEntry{UndoKind::kIndexInsert, table, RecordId{}, key, value});
  }
  void push_index_erase(u16 table, u64 key, u64 value) {
    entries_.push_back(UndoEntry{UndoKind::kIndexErase, table, RecordId{}, key, value});
  }
  void pop() { entries_.pop_back(); }

  const std::vector<UndoEntry>& entries() const { return entries_; }
  const std::byte* image(const UndoEntry& e) const { return images_.data() + e.image_at; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<UndoEntry> entries_;
  std::vector<std::byte> images_;
  size_t staged_at_ = 0;
};

}  // namespace dbrepro
