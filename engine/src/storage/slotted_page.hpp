#pragma once
// Slotted record page: a header, a slot array growing forward, record bytes
// growing backward from the end of the page. Records keep their slot for life,
// so a record id stays valid; updates are in place (rows are fixed-size).
#include <cstring>

#include "common/types.hpp"

namespace dbrepro {

struct SlottedPageHeader {
  u16 slot_count;
  u16 free_end;     // offset where the record area begins (grows down)
  u32 page_size;
  u64 reserved;     // room for an LSN later
};
static_assert(sizeof(SlottedPageHeader) == 16);

struct Slot {
  u16 offset;
  u16 length;
};

class SlottedPage {
 public:
  explicit SlottedPage(std::byte* page) : page_(page) {}

  // Record area offsets are u16, so a slotted page addresses at most 64 KB.
  static constexpr u32 kMaxPageSize = 65536;

  // Records start at 8-byte boundaries, so rows can be read in place as
  // structs; a 64 KB page's record area ends at 0xFFF8 (offsets are u16).
  static constexpr u32 kAlign = 8;
  static constexpr u32 area_end(u32 page_size) { return page_size == kMaxPageSize ? 0xFFF8 : page_size; }

  // The largest record an empty page of page_size bytes takes.
  static constexpr u32 max_record(u32 page_size) {
    return (area_end(page_size) - sizeof(SlottedPageHeader) - sizeof(Slot)) & ~(kAlign - 1);
  }

  void init(u32 page_size) {
    header() = SlottedPageHeader{0, static_cast<u16>(area_end(page_size)), page_size, 0};
  }

  u16 slot_count() const { return header().slot_count; }
  u32 free_space() const {
    const u32 used_front = sizeof(SlottedPageHeader) + header().slot_count * sizeof(Slot);
    return header().free_end > used_front ? header().free_end - used_front : 0;
  }
  bool fits(u32 length) const {
    const u32 used_front = sizeof(SlottedPageHeader) + (header().slot_count + 1) * sizeof(Slot);
    return header().free_end >= length && ((header().free_end - length) & ~(kAlign - 1)) >= used_front;
  }

  // Copies a record in; the caller checked fits(). Returns its slot.
  u16 insert(const void* data, u16 length) {
    SlottedPageHeader& h = header();
    h.free_end = static_cast<u16>((h.free_end - length) & ~(kAlign - 1));
    if (length > 0) std::memcpy(page_ + h.free_end, data, length);  // data may be null when empty
    slots()[h.slot_count] = Slot{h.free_end, length};
    return h.slot_count++;
  }

  // Copies a record in behind a header (`head`, head_length bytes: a record
  // tag); the caller checked fits(head_length + length). Returns its slot.
  u16 insert(const void* head, u16 head_length, const void* data, u16 length) {
    SlottedPageHeader& h = header();
    const u16 total = static_cast<u16>(head_length + length);
    h.free_end = static_cast<u16>((h.free_end - total) & ~(kAlign - 1));
    std::memcpy(page_ + h.free_end, head, head_length);
    if (length > 0) std::memcpy(page_ + h.free_end + head_length, data, length);
    slots()[h.slot_count] = Slot{h.free_end, total};
    return h.slot_count++;
  }

  std::byte* record(u16 slot) const { return page_ + slots()[slot].offset; }
  u16 length(u16 slot) const { return slots()[slot].length; }

 private:
  SlottedPageHeader& header() const { return *reinterpret_cast<SlottedPageHeader*>(page_); }
  Slot* slots() const { return reinterpret_cast<Slot*>(page_ + sizeof(SlottedPageHeader)); }
  std::byte* page_;
};

}  // namespace dbrepro
