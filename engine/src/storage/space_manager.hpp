#pragma once
// Where a heap file puts a new record: its space-management policy.
//
// ShoreSpace is Shore's space manager for a file of records on slotted
// pages (file_m::create_rec): the file keeps a map of its pages' free space
// (Shore's histoid_t, a heap of pginfo_t ordered by free bytes) and asks it
// for the page with the most room; the page is fixed exclusively and its
// own free space checked (the map may be stale); the record goes in with a
// header in front (Shore's rectag_t: header length, flags, body length,
// serial number); then the page's entry in the map is updated. A file with
// no page that has room gets a new, formatted page, added to the map. E1's
// full stack (its buffer-pool steps) creates every record this way; the
// "page access" switch replaces it by malloc per record (malloc_heap.hpp).
//
// AppendSpace is the plain form, for stores that only ever append (E5's
// disk-backed stack, tests): the current page, else a new one; no header.
#include <utility>
#include <vector>

#include "common/types.hpp"

namespace dbrepro {

// The pages of a file by free bytes, a binary max-heap: the top has the most.
class FreeSpaceMap {
 public:
  // The page with the most room if it has at least `need` bytes, else kInvalidPage.
  PageId find(u32 need) const { return !rooms_.empty() && rooms_[0].free >= need ? rooms_[0].pid : kInvalidPage; }

  void add(PageId pid, u32 free) {
    rooms_.push_back(Room{free, pid});
    sift_up(rooms_.size() - 1);
  }

  // The page's free bytes are now `free` (it is the top: the page find() gave).
  void update(PageId pid, u32 free) {
    size_t i = 0;
    while (rooms_[i].pid != pid) ++i;
    const u32 old = rooms_[i].free;
    rooms_[i].free = free;
    if (free < old) sift_down(i); else sift_up(i);
  }

  size_t size() const { return rooms_.size(); }

 private:
  struct Room {
    u32 free;
    PageId pid;
  };
  void sift_up(size_t i) {
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (rooms_[parent].free >= rooms_[i].free) return;
      std::swap(rooms_[parent], rooms_[i]);
      i = parent;
    }
  }
  void sift_down(size_t i) {
    const size_t n = rooms_.size();
    for (;;) {
      const size_t left = 2 * i + 1, right = left + 1;
      size_t most = i;
      if (left < n && rooms_[left].free > rooms_[most].free) most = left;
      if (right < n && rooms_[right].free > rooms_[most].free) most = right;
      if (most == i) return;
      std::swap(rooms_[most], rooms_[i]);
      i = most;
    }
  }
  std::vector<Room> rooms_;
};

struct ShoreSpace {
  // Shore's record header (rectag_t), in front of every record's body.
  struct Tag {
    u16 header_length;
    u16 flags;  // 0: a small record, its body on the page
    u32 body_length;
    u64 serial;  // the record's serial number in its file
  };
  static constexpr u16 kHeader = sizeof(Tag);
  // What a record of `stored` bytes needs beyond that: its slot and the alignment of its start.
  static constexpr u32 kOverhead = 4 + 7;

  PageId candidate(u32 stored) const { return map.find(stored + kOverhead); }
  void added(PageId pid, u32 free) { map.add(pid, free); }
  void used(PageId pid, u32 free) { map.update(pid, free); }
  Tag tag(u16 length) { return Tag{kHeader, 0, length, ++serial}; }

  FreeSpaceMap map;
  u64 serial = 0;
};

struct AppendSpace {
  struct Tag {};
  static constexpr u16 kHeader = 0;

  PageId candidate(u32) const { return current; }
  void added(PageId pid, u32) { current = pid; }
  void used(PageId, u32) {}
  Tag tag(u16) { return Tag{}; }

  PageId current = kInvalidPage;
};

}  // namespace dbrepro
