#pragma once
// The catalog (directory): maps each table and index name to its storage, a
// heap file for the rows and a B+tree for the key. Transactions reach storage
// only through an entry found here.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/types.hpp"

namespace dbrepro {

template <class Heap, class Index>
class Catalog {
 public:
  struct Entry {
    u16 id = 0;          // catalog id: names the table in locks and log records
    std::string name;
    u32 row_size = 0;
    std::unique_ptr<Heap> heap;    // null for index-only entries
    std::unique_ptr<Index> index;  // null for heap-only tables
  };

  Entry& create(std::string name, u32 row_size, std::unique_ptr<Heap> heap, std::unique_ptr<Index> index) {
    auto [it, inserted] = entries_.try_emplace(name);
    if (!inserted) throw std::invalid_argument("catalog: '" + name + "' already exists");
    it->second = Entry{static_cast<u16>(entries_.size()), std::move(name), row_size, std::move(heap), std::move(index)};
    return it->second;
  }

  Entry& lookup(std::string_view name) {
    auto it = entries_.find(name);
    if (it == entries_.end()) throw std::out_of_range("catalog: no table or index named '" + std::string(name) + "'");
    return it->second;
  }

  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [name, entry] : entries_) fn(entry);
  }

  size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace dbrepro
