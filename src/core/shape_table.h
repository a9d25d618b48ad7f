// A map from (m, n, k) to a value, read without locks or allocation. Writers are serialized by
// the owner; readers may run at any time. Entries are immutable once published and live as long
// as the table; a full table is replaced by a larger copy, and old tables are kept until the
// owner is destroyed, so a reader never touches freed memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace gemmtune {

template <class Value>
class ShapeTable {
 public:
  ShapeTable() { grow(64); }

  // Null when the shape is unknown. Lock-free: a few loads and compares.
  Value* find(std::int64_t m, std::int64_t n, std::int64_t k) const {
    const Table* table = current_.load(std::memory_order_acquire);
    const std::size_t mask = table->slots.size() - 1;
    for (std::size_t i = hash(m, n, k) & mask;; i = (i + 1) & mask) {
      const Entry* e = table->slots[i].load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;
      if (e->m == m && e->n == n && e->k == k) return e->value.get();
    }
  }

  // Callers serialize inserts (the owner holds its lock). Replaces nothing: the first value for
  // a shape stays.
  Value* insert(std::int64_t m, std::int64_t n, std::int64_t k, std::unique_ptr<Value> value) {
    if (Value* existing = find(m, n, k)) return existing;
    Table* table = current_.load(std::memory_order_relaxed);
    if ((count_ + 1) * 2 > table->slots.size()) table = grow(table->slots.size() * 2);
    entries_.push_back(std::make_unique<Entry>(Entry{m, n, k, std::move(value)}));
    place(*table, entries_.back().get());
    ++count_;
    return entries_.back()->value.get();
  }

  std::size_t size() const { return count_; }

 private:
  struct Entry {
    std::int64_t m, n, k;
    std::unique_ptr<Value> value;
  };
  struct Table {
    explicit Table(std::size_t size) : slots(size) {}
    std::vector<std::atomic<const Entry*>> slots;
  };

  static std::size_t hash(std::int64_t m, std::int64_t n, std::int64_t k) {
    std::uint64_t h = std::uint64_t(m) * 0x9e3779b97f4a7c15ull;
    h ^= std::uint64_t(n) * 0xc2b2ae3d27d4eb4full + (h << 6) + (h >> 2);
    h ^= std::uint64_t(k) * 0x165667b19e3779f9ull + (h << 6) + (h >> 2);
    return std::size_t(h ^ (h >> 29));
  }

  static void place(Table& table, const Entry* entry) {
    const std::size_t mask = table.slots.size() - 1;
    std::size_t i = hash(entry->m, entry->n, entry->k) & mask;
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
  std::size_t count_ = 0;
};

}  // namespace gemmtune
