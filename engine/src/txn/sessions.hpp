#pragma once
// Transaction sessions. PerTxnSessions creates a transaction object for each
// transaction and registers it in the transaction table, as a general engine
// does for every client transaction; SingleSession runs every transaction in
// one preallocated session (E1's "Xactions" switch).
#include <memory>
#include <unordered_map>

#include "latch/latch.hpp"
#include "txn/transaction.hpp"

namespace dbrepro {

template <class Latching>
class PerTxnSessions {
 public:
  static constexpr const char* kName = "per-transaction sessions";

  Transaction* begin() {
    auto txn = std::make_unique<Transaction>();
    Transaction* raw = txn.get();
    LatchGuard guard(mutex_);
    raw->reset(++next_id_);
    table_.emplace(raw->id, std::move(txn));
    return raw;
  }

  void end(Transaction* txn) {
    LatchGuard guard(mutex_);
    table_.erase(txn->id);
  }

  size_t active() const { return table_.size(); }

 private:
  typename Latching::Mutex mutex_;
  u64 next_id_ = 0;
  std::unordered_map<u64, std::unique_ptr<Transaction>> table_;
};

template <class Latching>
class SingleSession {
 public:
  static constexpr const char* kName = "one session";

  Transaction* begin() {
    txn_.reset(++next_id_);
    return &txn_;
  }
  void end(Transaction*) {}
  size_t active() const { return 0; }

 private:
  u64 next_id_ = 0;
  Transaction txn_;
};

}  // namespace dbrepro
