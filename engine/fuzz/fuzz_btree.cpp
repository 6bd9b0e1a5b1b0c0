// libFuzzer target: B+tree operation sequences checked against std::map.
//
// The input drives two trees at once, one per key-compare policy (generic,
// descriptor-driven; integer, one machine compare), on 1 KB pages (62 keys a
// node, so a few hundred keys already split leaves and inner nodes). The
// integer tree sits on latched pages: an unbalanced fix/unfix would leave a
// latch held and hang the next writer, which libFuzzer reports as a timeout.
//
// Input format:
//   byte 0          key layout (one of kLayouts)
//   then 4 bytes per operation: [op] [key hi] [key lo] [arg]
//     op & 7: 0 insert, 1 erase, 2 lookup, 3 update, 4 scan `arg` entries
//             from key, 5 insert a run of arg+1 keys from key with stride
//             (op >> 3) + 1, 6 erase up to arg+1 present keys from key,
//             7 full check (scan, size, structure)
//   The 16-bit key index is spread evenly over the layout's key range, so
//   index 0 and 65535 are the smallest and largest packed keys.
// After the last operation every tree gets the full check.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "btree/btree.hpp"
#include "btree/key.hpp"
#include "btree/invariants.hpp"
#include "storage/page_store.hpp"

namespace dbrepro::fuzz {
namespace {

constexpr u32 kPageSize = 1024;  // the smallest page DirectPages allows
constexpr u32 kKeyIndexMax = 0xffff;

const std::array<KeyLayout, 5> kLayouts{KeyLayout{8, 24, 8}, KeyLayout{64}, KeyLayout{32, 32}, KeyLayout{1, 63},
                                        KeyLayout{8, 8, 8, 8, 8, 24}};

[[noreturn]] void fail(const char* tree, const std::string& what) {
  std::fprintf(stderr, "fuzz_btree: %s tree: %s\n", tree, what.c_str());
  std::abort();
}

using Model = std::map<u64, u64>;

// One tree under test with its own pages.
template <class Compare, class Pages>
struct Subject {
  explicit Subject(const KeyLayout& layout) : tree(pages, layout) {}
  const char* name() const { return Compare::kName; }

  // The message is built only on failure: this runs on every operation.
  template <class Message>
  void expect(bool ok, Message message) const {
    if (!ok) fail(name(), message());
  }

  void insert(u64 key, u64 value, bool expected) {
    expect(tree.insert(key, value) == expected, [&] { return "insert " + std::to_string(key) + " disagrees with the model"; });
  }
  void erase(u64 key, bool expected) {
    expect(tree.erase(key) == expected, [&] { return "erase " + std::to_string(key) + " disagrees with the model"; });
  }
  void update(u64 key, u64 value, bool expected) {
    expect(tree.update(key, value) == expected, [&] { return "update " + std::to_string(key) + " disagrees with the model"; });
  }
  void lookup(const Model& model, u64 key) {
    u64 value = 0;
    const auto it = model.find(key);
    const bool found = tree.lookup(key, &value);
    expect(found == (it != model.end()), [&] { return "lookup " + std::to_string(key) + " disagrees with the model"; });
    expect(!found || value == it->second, [&] { return "lookup " + std::to_string(key) + " returned a wrong value"; });
  }
  // Up to `limit` entries from seek(key) equal the model's from lower_bound(key).
  void scan(const Model& model, u64 key, size_t limit) {
    auto it = model.lower_bound(key);
    auto cursor = tree.seek(key);
    for (size_t n = 0; n < limit; ++n, ++it, cursor.next()) {
      if (it == model.end()) {
        expect(!cursor.valid(), [&] { return "scan from " + std::to_string(key) + " runs past the model's end"; });
        return;
      }
      expect(cursor.valid(), [&] { return "scan from " + std::to_string(key) + " ends early at step " + std::to_string(n); });
      expect(cursor.key() == it->first && cursor.value() == it->second,
             [&] { return "scan from " + std::to_string(key) + " differs at step " + std::to_string(n); });
    }
  }
  void check(const Model& model) {
    scan(model, 0, model.size() + 1);
    expect(tree.size() == model.size(),
           [&] { return "size() " + std::to_string(tree.size()) + ", model " + std::to_string(model.size()); });
    const std::string error = BTreeInvariants(tree, pages).check();
    expect(error.empty(), [&] { return error; });
  }

  Pages pages{kPageSize};
  BTree<Compare, Pages> tree;
};

class Harness {
 public:
  explicit Harness(const KeyLayout& layout) : layout_(layout), generic_(layout), integer_(layout) {
    const int bits = layout.total_bits();
    const u64 max_key = bits == 64 ? ~u64{0} : (u64{1} << bits) - 1;
    step_ = max_key / kKeyIndexMax;
  }

  void apply(const u8* op, u64 serial) {
    const u32 index = (u32{op[1]} << 8) | op[2];
    const u32 arg = op[3];
    const u64 value = (serial << 16) ^ (u64{arg} << 8) ^ op[0];
    switch (op[0] & 7) {
      case 0: insert(index, value); break;
      case 1: erase(key(index)); break;
      case 2: both([&](auto& s) { s.lookup(model_, key(index)); }); break;
      case 3: update(key(index), value); break;
      case 4: both([&](auto& s) { s.scan(model_, key(index), arg); }); break;
      case 5: {
        const u32 stride = (op[0] >> 3) + 1u;
        for (u32 i = 0, k = index; i <= arg && k <= kKeyIndexMax; ++i, k += stride) insert(k, value + i);
        break;
      }
      case 6: {
        auto it = model_.lower_bound(key(index));
        for (u32 i = 0; i <= arg && it != model_.end(); ++i) {
          const u64 k = it->first;
          it = model_.erase(it);
          both([&](auto& s) { s.erase(k, true); });
        }
        break;
      }
      default: check(); break;
    }
  }

  void check() {
    both([&](auto& s) { s.check(model_); });
  }

 private:
  u64 key(u32 index) const { return index * step_; }

  template <class F>
  void both(F f) {
    f(generic_);
    f(integer_);
  }
  void insert(u32 index, u64 value) {
    const u64 k = key(index);
    const bool fresh = model_.emplace(k, value).second;
    both([&](auto& s) { s.insert(k, value, fresh); });
  }
  void erase(u64 k) {
    const bool present = model_.erase(k) == 1;
    both([&](auto& s) { s.erase(k, present); });
  }
  void update(u64 k, u64 value) {
    const auto it = model_.find(k);
    if (it != model_.end()) it->second = value;
    both([&](auto& s) { s.update(k, value, it != model_.end()); });
  }

  KeyLayout layout_;
  u64 step_;
  Model model_;
  Subject<GenericKeyCompare, PageStore> generic_;
  Subject<IntegerKeyCompare, DirectPages<Latching>> integer_;
};

}  // namespace
}  // namespace dbrepro::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dbrepro::fuzz;
  if (size == 0) return 0;
  Harness harness(kLayouts[data[0] % kLayouts.size()]);
  for (size_t i = 1; i + 4 <= size; i += 4) harness.apply(data + i, i / 4);
  harness.check();
  return 0;
}
