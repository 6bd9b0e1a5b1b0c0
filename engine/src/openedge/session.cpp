#include "openedge/session.hpp"

#include <limits>
#include <string>

namespace dbrepro::openedge {

void Session::handle(const Request& request, std::vector<std::byte>& out) {
  std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, OpenRequest>) {
          if (optimistic_)
            open(Cursor{std::in_place_type<IndexCursor<OptimisticAccess>>, pool_, db_, r.table, r.column, r.lo, r.hi},
                 r.prefetch, out);
          else
            open(Cursor{std::in_place_type<IndexCursor<LookupAccess>>, pool_, db_, r.table, r.column, r.lo, r.hi},
                 r.prefetch, out);
        } else if constexpr (std::is_same_v<T, JoinRequest>) {
          if (optimistic_)
            open(Cursor{std::in_place_type<JoinCursor<OptimisticAccess>>, pool_, db_, r.spec}, r.prefetch, out);
          else
            open(Cursor{std::in_place_type<JoinCursor<LookupAccess>>, pool_, db_, r.spec}, r.prefetch, out);
        } else if constexpr (std::is_same_v<T, FindRequest>) {
          // A point find: the first record whose column equals the value.
          const i64 hi = r.value == std::numeric_limits<i64>::max() ? r.value : r.value + 1;
          Cursor cursor{std::in_place_type<IndexCursor<LookupAccess>>, pool_, db_, r.table, r.column, r.value, hi};
          reply_batch(cursor, 0, 1, out);
        } else if constexpr (std::is_same_v<T, NextRequest>) {
          next(r.cursor, r.prefetch, out);
        } else {
          close(r.cursor, out);
        }
      },
      request);
}

bool Session::reply_batch(Cursor& cursor, u32 id, u32 prefetch, std::vector<std::byte>& out) {
  return std::visit(
      [&](auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, JoinCursor<LookupAccess>> || std::is_same_v<T, JoinCursor<OptimisticAccess>>) {
          entries_.clear();
          const bool end = !c.next_batch(prefetch, entries_, counters_);
          encode_records(end ? 0 : id, end, entries_, out);
          return end;
        } else {
          records_.clear();
          const bool end = !c.next_batch(prefetch, records_, counters_);
          encode_records(end ? 0 : id, end, records_, out);
          return end;
        }
      },
      cursor);
}

void Session::open(Cursor cursor, u32 prefetch, std::vector<std::byte>& out) {
  if (cursors_.size() >= kMaxCursorsPerSession) {
    encode_error(ErrorCode::kServer, "too many open cursors (limit " + std::to_string(kMaxCursorsPerSession) + ")",
                 out);
    return;
  }
  const u32 id = next_id_++;
  if (next_id_ == 0) next_id_ = 1;  // 0 means "no cursor" on the wire
  if (reply_batch(cursor, id, prefetch, out)) return;  // exhausted in one batch: never stored
  cursors_.emplace(id, std::move(cursor));
  open_cursors_.fetch_add(1);
}

void Session::next(u32 id, u32 prefetch, std::vector<std::byte>& out) {
  const auto it = cursors_.find(id);
  if (it == cursors_.end()) {
    encode_error(ErrorCode::kUnknownCursor, "no open cursor " + std::to_string(id), out);
    return;
  }
  if (reply_batch(it->second, id, prefetch, out)) {
    cursors_.erase(it);
    open_cursors_.fetch_sub(1);
  }
}

void Session::close(u32 id, std::vector<std::byte>& out) {
  if (cursors_.erase(id) == 0) {
    encode_error(ErrorCode::kUnknownCursor, "no open cursor " + std::to_string(id), out);
    return;
  }
  open_cursors_.fetch_sub(1);
  encode_ok(out);
}

}  // namespace dbrepro::openedge
