#pragma once
// Page LSNs, as Shore processes them: every page header keeps the LSN of
// its last change at byte offset 8 (slotted pages and B+tree nodes alike),
// stamped on every change (page_p::set_lsns); the buffer pool checks it on
// fix and unfix (Checks: Shore's bf_m): an exclusive fix notes the page's
// LSN, its unfix verifies that the LSN did not go back and, for a page the
// fix changed that was clean, records its recovery LSN (rec_lsn: the dirty
// page table's entry, where redo of the page would start). The
// per-transaction chain of log records (prev_lsn) is the log's
// (write_ahead_log.hpp). NoLsn is E1's "LSN" switch: no LSN processing.
#include <cstring>
#include <memory>
#include <stdexcept>

#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

using Lsn = u64;

struct PageLsn {
  static constexpr const char* kName = "page LSNs";
  static constexpr size_t kOffset = 8;
  static Lsn read(const std::byte* page) {
    Lsn lsn;
    std::memcpy(&lsn, page + kOffset, sizeof(lsn));
    return lsn;
  }
  static void stamp(std::byte* page, Lsn lsn) {
    if (lsn >= read(page)) std::memcpy(page + kOffset, &lsn, sizeof(lsn));
  }

  // The buffer pool's checks, per page (by page number, below `pages`).
  // A page's entries change only under its exclusive latch.
  class Checks {
   public:
    static constexpr Lsn kClean = ~Lsn{0};
    explicit Checks(size_t pages) : at_fix_(std::make_unique<Lsn[]>(pages)), rec_lsn_(std::make_unique<Lsn[]>(pages)) {
      for (size_t i = 0; i < pages; ++i) rec_lsn_[i] = kClean;
    }
    void fixed(u64 page_no, const std::byte* page, LatchMode mode) {
      if (mode == LatchMode::kExclusive) at_fix_[page_no] = read(page);
    }
    void unfixing(u64 page_no, const std::byte* page, LatchMode mode) {
      if (mode != LatchMode::kExclusive) return;
      const Lsn now = read(page);
      if (now < at_fix_[page_no]) throw std::logic_error("page LSN went back while the page was fixed");
      if (now != at_fix_[page_no] && rec_lsn_[page_no] == kClean) rec_lsn_[page_no] = now;
    }
    // The page's recovery LSN; kClean if no change since it was last clean.
    Lsn rec_lsn(u64 page_no) const { return rec_lsn_[page_no]; }

   private:
    std::unique_ptr<Lsn[]> at_fix_;   // the page LSN when the exclusive fix began
    std::unique_ptr<Lsn[]> rec_lsn_;  // the dirty page table
  };
};

struct NoLsn {
  static constexpr const char* kName = "no LSNs";
  static void stamp(std::byte*, Lsn) {}
  struct Checks {
    explicit Checks(size_t) {}
    void fixed(u64, const std::byte*, LatchMode) {}
    void unfixing(u64, const std::byte*, LatchMode) {}
  };
};

}  // namespace dbrepro
