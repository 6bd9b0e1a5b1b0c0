#pragma once
// A record fixed through its heap (storage/heap_file.hpp, storage/malloc_heap.hpp)
// and held by a guard that unfixes it when it goes away, as buffer/page_guard.hpp
// holds a page. E1's measured pin and unpin phases keep the two halves apart
// by hand (stack/engine.hpp); everything else holds a record this way.
#include "latch/latch.hpp"
#include "storage/heap_file.hpp"
#include "storage/record_id.hpp"

namespace dbrepro {

template <class Heap, LatchMode M>
class RecordGuard {
 public:
  [[gnu::always_inline]] RecordGuard(Heap& heap, RecordId rid) : heap_(heap), rid_(rid), pinned_(heap.fix(rid, M)) {}
  RecordGuard(const RecordGuard&) = delete;
  RecordGuard& operator=(const RecordGuard&) = delete;
  [[gnu::always_inline]] ~RecordGuard() { heap_.unfix(rid_, pinned_, M); }

  std::byte* record() const { return pinned_.record; }
  std::byte* page() const { return pinned_.page; }

 private:
  Heap& heap_;
  RecordId rid_;
  PinnedRecord pinned_;
};

}  // namespace dbrepro
