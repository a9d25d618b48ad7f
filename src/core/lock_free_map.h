// A map read without locks or allocation: the dispatch tables of Session and GemmOp. Writers
// are serialized by the owner; readers may run at any time. Entries are immutable once
// published (a value that must change is itself atomic) and live as long as the map; a full
// table is replaced by a larger copy and old tables are kept until the map is destroyed, so a
// reader never touches freed memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "invariant.h"

namespace gemmtune {

template <class Key, class Value, class Hash = std::hash<Key>>
class LockFreeMap {
 public:
  LockFreeMap() { grow(64); }

  // Null when the key is unknown. Lock-free: a hash, a few loads and compares.
  Value* find(const Key& key) const {
    const Table* table = current_.load(std::memory_order_acquire);
    const std::size_t mask = table->slots.size() - 1;
    for (std::size_t i = Hash{}(key) & mask;; i = (i + 1) & mask) {
      const Entry* e = table->slots[i].load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;
      if (e->key == key) return e->value.get();
    }
  }

  // Callers serialize inserts. The first value for a key stays; its pointer is returned.
  Value* insert(const Key& key, std::unique_ptr<Value> value) {
    if (Value* existing = find(key)) return existing;
    Table* table = current_.load(std::memory_order_relaxed);
    if ((entries_.size() + 1) * 2 > table->slots.size()) table = grow(table->slots.size() * 2);
    // find() and place() probe until an empty slot: at most half of the slots are ever taken.
    GEMMTUNE_DASSERT((entries_.size() + 1) * 2 <= table->slots.size(), "the table keeps a free slot to end probes");
    entries_.push_back(std::make_unique<Entry>(Entry{key, std::move(value)}));
    place(*table, entries_.back().get());
    return entries_.back()->value.get();
  }

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Key key;
    std::unique_ptr<Value> value;
  };
  struct Table {
    explicit Table(std::size_t size) : slots(size) {}
    std::vector<std::atomic<const Entry*>> slots;
  };

  static void place(Table& table, const Entry* entry) {
    const std::size_t mask = table.slots.size() - 1;
    std::size_t i = Hash{}(entry->key) & mask;
    while (table.slots[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & mask;
    table.slots[i].store(entry, std::memory_order_release);
  }

  Table* grow(std::size_t size) {
    auto table = std::make_unique<Table>(size);
    for (const auto& entry : entries_) place(*table, entry.get());
    Table* raw = table.get();
    tables_.push_back(std::move(table));
    current_.store(raw, std::memory_order_release);
    return raw;
  }

  std::atomic<Table*> current_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;
  std::vector<std::unique_ptr<Entry>> entries_;
};

// (m, n, k), the key of a GemmOp's table.
struct Dims {
  std::int64_t m, n, k;
  bool operator==(const Dims&) const = default;
};
struct DimsHash {
  std::size_t operator()(const Dims& d) const {
    std::uint64_t h = std::uint64_t(d.m) * 0x9e3779b97f4a7c15ull;
    h ^= std::uint64_t(d.n) * 0xc2b2ae3d27d4eb4full + (h << 6) + (h >> 2);
    h ^= std::uint64_t(d.k) * 0x165667b19e3779f9ull + (h << 6) + (h >> 2);
    return std::size_t(h ^ (h >> 29));
  }
};

}  // namespace gemmtune
