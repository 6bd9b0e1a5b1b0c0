#pragma once
// One client's state on a server: its open cursors and what its requests
// cost. Independent of sockets: the server modes feed it decoded requests and
// send the reply frames it appends.
#include <atomic>
#include <unordered_map>
#include <variant>
#include <vector>

#include "openedge/protocol.hpp"

namespace dbrepro::openedge {

inline constexpr u32 kMaxCursorsPerSession = 1024;

class Session {
 public:
  // `open_cursors` counts the cursors of every session of a server (a gauge
  // the tests read); `optimistic` picks the cursors' Access policy.
  Session(const Database& db, BufferPool& pool, bool optimistic, std::atomic<i64>& open_cursors)
      : db_(db), pool_(pool), optimistic_(optimistic), open_cursors_(open_cursors) {}
  ~Session() { open_cursors_.fetch_sub(static_cast<i64>(cursors_.size())); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void handle(const Request& request, std::vector<std::byte>& out);

  const AccessCounters& counters() const { return counters_; }
  size_t cursor_count() const { return cursors_.size(); }

 private:
  using Cursor = std::variant<IndexCursor<LookupAccess>, IndexCursor<OptimisticAccess>, JoinCursor<LookupAccess>,
                              JoinCursor<OptimisticAccess>>;

  void open(Cursor cursor, u32 prefetch, std::vector<std::byte>& out);
  void next(u32 id, u32 prefetch, std::vector<std::byte>& out);
  void close(u32 id, std::vector<std::byte>& out);
  // The cursor's next batch as a RECORDS frame; true if the cursor is exhausted.
  bool reply_batch(Cursor& cursor, u32 id, u32 prefetch, std::vector<std::byte>& out);

  const Database& db_;
  BufferPool& pool_;
  bool optimistic_;
  std::atomic<i64>& open_cursors_;
  std::unordered_map<u32, Cursor> cursors_;
  u32 next_id_ = 1;
  AccessCounters counters_;
  std::vector<Record> records_;   // reused reply buffers
  std::vector<JoinEntry> entries_;
};

}  // namespace dbrepro::openedge
