#pragma once
// A fixed page held by a guard, which unfixes it (pin and latch) when it goes
// away, as DuckDB's BufferHandle and vmcache's GuardS/GuardX do: an early
// return or an exception can no longer leave a page pinned or a latch held.
// Works over any page store with fix(pid, mode) and unfix(pid, page, mode)
// (the page cache and its study configurations, DirectPages).
//
// The latch mode is part of the type where the caller knows it
// (SharedGuard, ExclusiveGuard) and a value where the caller decides it at
// run time (PageGuard: B-tree descents that latch the leaf level
// exclusively). A guard is move-only; a moved-from guard holds nothing.
// couple() is latch coupling: fix the next page, then let this one go.
//
// Cost: a guard compiles to the fix and unfix a caller would write by hand
// (E1 counts the instructions of these paths): its members are always
// inlined, so no call is added around fix and unfix, and fix never returns
// null, which the constructors tell the compiler, so a guard that was not
// moved from unfixes without testing whether it holds a page.
#include <type_traits>
#include <utility>

#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

template <LatchMode M>
struct StaticLatchMode {
  StaticLatchMode() = default;
  explicit StaticLatchMode(LatchMode) {}
  static constexpr LatchMode value() { return M; }
};
struct DynamicLatchMode {
  DynamicLatchMode() = default;
  explicit DynamicLatchMode(LatchMode m) : mode(m) {}
  LatchMode value() const { return mode; }
  LatchMode mode = LatchMode::kShared;
};

template <class Pages, class Mode>
class BasicPageGuard {
 public:
  BasicPageGuard() = default;
  // Fixes pid (Mode's latch mode; `mode` where the guard's type leaves it open).
  [[gnu::always_inline]] BasicPageGuard(Pages& pages, PageId pid)
    requires(!std::is_same_v<Mode, DynamicLatchMode>)
      : pages_(&pages), pid_(pid), page_(fixed(pages.fix(pid, Mode::value()))) {}
  [[gnu::always_inline]] BasicPageGuard(Pages& pages, PageId pid, LatchMode mode)
    requires std::is_same_v<Mode, DynamicLatchMode>
      : pages_(&pages), pid_(pid), mode_(mode), page_(fixed(pages.fix(pid, mode))) {}

  // Takes over a fix the caller made by hand (in this guard's mode).
  [[gnu::always_inline]] static BasicPageGuard adopt(Pages& pages, PageId pid, std::byte* page,
                                                     LatchMode mode = Mode{}.value()) {
    BasicPageGuard g;
    g.pages_ = &pages;
    g.pid_ = pid;
    g.mode_ = Mode(mode);
    g.page_ = page;
    return g;
  }

  [[gnu::always_inline]] BasicPageGuard(BasicPageGuard&& other) noexcept
      : pages_(other.pages_), pid_(other.pid_), mode_(other.mode_), page_(std::exchange(other.page_, nullptr)) {}
  [[gnu::always_inline]] BasicPageGuard& operator=(BasicPageGuard&& other) noexcept {
    if (this != &other) {
      release();
      pages_ = other.pages_;
      pid_ = other.pid_;
      mode_ = other.mode_;
      page_ = std::exchange(other.page_, nullptr);
    }
    return *this;
  }
  BasicPageGuard(const BasicPageGuard&) = delete;
  BasicPageGuard& operator=(const BasicPageGuard&) = delete;
  [[gnu::always_inline]] ~BasicPageGuard() { release(); }

  // Latch coupling: fixes `next` (in `mode`), then unfixes the page held.
  [[gnu::always_inline]] void couple(PageId next)
    requires(!std::is_same_v<Mode, DynamicLatchMode>)
  {
    std::byte* next_page = fixed(pages_->fix(next, Mode::value()));
    pages_->unfix(pid_, page_, mode_.value());
    pid_ = next;
    page_ = next_page;
  }
  [[gnu::always_inline]] void couple(PageId next, LatchMode mode)
    requires std::is_same_v<Mode, DynamicLatchMode>
  {
    std::byte* next_page = fixed(pages_->fix(next, mode));
    pages_->unfix(pid_, page_, mode_.value());
    pid_ = next;
    mode_ = Mode(mode);
    page_ = next_page;
  }

  // Unfixes now (nothing if the guard holds nothing).
  [[gnu::always_inline]] void release() {
    if (page_ != nullptr) {
      pages_->unfix(pid_, page_, mode_.value());
      page_ = nullptr;
    }
  }
  // Hands the fix to the caller, who unfixes it by hand.
  [[gnu::always_inline]] std::byte* detach() { return std::exchange(page_, nullptr); }

  bool held() const { return page_ != nullptr; }
  explicit operator bool() const { return held(); }
  std::byte* page() const { return page_; }
  PageId pid() const { return pid_; }
  LatchMode mode() const { return mode_.value(); }
  Pages& pages() const { return *pages_; }

 private:
  static std::byte* fixed(std::byte* page) {
    if (page == nullptr) __builtin_unreachable();  // fix throws rather than return null
    return page;
  }

  Pages* pages_ = nullptr;
  PageId pid_ = kInvalidPage;
  [[no_unique_address]] Mode mode_{};
  std::byte* page_ = nullptr;
};

template <class Pages>
using SharedGuard = BasicPageGuard<Pages, StaticLatchMode<LatchMode::kShared>>;
template <class Pages>
using ExclusiveGuard = BasicPageGuard<Pages, StaticLatchMode<LatchMode::kExclusive>>;
template <class Pages>
using PageGuard = BasicPageGuard<Pages, DynamicLatchMode>;

}  // namespace dbrepro
