// The embedded store: one SQLite file per machine, shared by every process that tunes on it.
//
// WAL mode lets readers run while one process writes; the busy timeout makes concurrent
// writers queue instead of failing. Each put is one transaction, and with WAL a committed
// transaction survives the process being killed at any point after COMMIT returns
// (synchronous=NORMAL loses at most recent commits on power loss, never on a process crash).
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "tuning_store.h"

namespace gemmtune {
namespace {

namespace fs = std::filesystem;

// Long enough for a queue of writers (each transaction takes well under a millisecond), short
// enough that a file locked by a hung process does not hang the caller for long.
constexpr int kBusyTimeoutMs = 5000;

Status sqlite_error(sqlite3* db, const std::string& what, const std::string& path) {
  const int code = db ? sqlite3_errcode(db) : SQLITE_ERROR;
  const ErrorCode kind = code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? ErrorCode::corrupt_data : ErrorCode::io_error;
  return Status(kind, what + " " + path + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

// Statements compiled once per connection; a lookup then costs a bind and a step.
class Statement {
 public:
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { finalize(); }
  void finalize() {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }
  int prepare(sqlite3* db, const char* sql) { return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr); }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// Resets the statement whatever path the caller leaves by, so its read lock is released.
struct ResetOnExit {
  sqlite3_stmt* stmt;
  ~ResetOnExit() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
};

bool looks_like_sqlite(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec) || fs::file_size(path, ec) == 0) return true;  // new or empty: SQLite fills it
  char header[16] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(header, sizeof header);
  return in.gcount() == sizeof header && std::memcmp(header, "SQLite format 3", 16) == 0;
}

class SqliteStore final : public TuningStore {
 public:
  explicit SqliteStore(std::string path) : path_(std::move(path)) {}
  ~SqliteStore() override {
    get_.finalize();
    put_.finalize();
    sqlite3_close_v2(db_);
  }

  Status open() {
    if (!looks_like_sqlite(path_)) return Status(ErrorCode::corrupt_data, path_ + " is not a SQLite database");
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
      return sqlite_error(db_, "cannot open", path_);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    GEMMTUNE_RETURN_IF_ERROR(exec("PRAGMA journal_mode=WAL"));
    GEMMTUNE_RETURN_IF_ERROR(exec("PRAGMA synchronous=NORMAL"));
    GEMMTUNE_RETURN_IF_ERROR(quick_check());
    GEMMTUNE_RETURN_IF_ERROR(
        exec("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, "
             "updated_unix INTEGER NOT NULL)"));
    if (get_.prepare(db_, "SELECT value FROM entries WHERE key = ?1") != SQLITE_OK ||
        put_.prepare(db_, "INSERT OR REPLACE INTO entries (key, value, updated_unix) VALUES (?1, ?2, strftime('%s','now'))") !=
            SQLITE_OK) {
      return sqlite_error(db_, "cannot prepare statements on", path_);
    }
    return Status::ok();
  }

  std::string describe() const override { return "sqlite " + path_; }

  Result<std::string> get(const std::string& key) override {
    std::lock_guard lock(mutex_);
    sqlite3_stmt* stmt = get_.get();
    ResetOnExit reset{stmt};
    sqlite3_bind_text(stmt, 1, key.data(), int(key.size()), SQLITE_STATIC);
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) return not_found("no entry " + key);
    if (rc != SQLITE_ROW) return sqlite_error(db_, "cannot read", path_);
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    return std::string(text ? text : "", std::size_t(sqlite3_column_bytes(stmt, 0)));
  }

  Status put(const std::string& key, const std::string& value) override {
    std::lock_guard lock(mutex_);
    return put_locked(key, value);
  }

  Status put_all(const std::vector<StoreRecord>& records) override {
    std::lock_guard lock(mutex_);
    // IMMEDIATE takes the write lock now, so the busy timeout applies here rather than a
    // deadlock-prone upgrade from a read lock halfway through.
    GEMMTUNE_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
    for (const StoreRecord& record : records) {
      Status status = put_locked(record.key, record.value);
      if (!status.is_ok()) {
        (void)exec("ROLLBACK");
        return status;
      }
    }
    Status committed = exec("COMMIT");
    if (!committed.is_ok()) (void)exec("ROLLBACK");
    return committed;
  }

  Result<std::vector<StoreRecord>> list() override {
    std::lock_guard lock(mutex_);
    Statement all;
    if (all.prepare(db_, "SELECT key, value FROM entries ORDER BY key") != SQLITE_OK) {
      return sqlite_error(db_, "cannot list", path_);
    }
    std::vector<StoreRecord> records;
    int rc;
    while ((rc = sqlite3_step(all.get())) == SQLITE_ROW) {
      auto column = [&](int i) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(all.get(), i));
        return std::string(text ? text : "", std::size_t(sqlite3_column_bytes(all.get(), i)));
      };
      records.push_back({column(0), column(1)});
    }
    if (rc != SQLITE_DONE) return sqlite_error(db_, "cannot list", path_);
    return records;
  }

  Status clear() override {
    std::lock_guard lock(mutex_);
    return exec("DELETE FROM entries");
  }

 private:
  Status put_locked(const std::string& key, const std::string& value) {
    sqlite3_stmt* stmt = put_.get();
    ResetOnExit reset{stmt};
    sqlite3_bind_text(stmt, 1, key.data(), int(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, value.data(), int(value.size()), SQLITE_STATIC);
    if (sqlite3_step(stmt) != SQLITE_DONE) return sqlite_error(db_, "cannot write", path_);
    return Status::ok();
  }

  // One statement, retried while another connection holds the lock, up to the busy timeout.
  // The busy handler covers most waits, but switching a new file to WAL while other processes
  // open it answers "database is locked" at once (SQLite gives up rather than risk a deadlock
  // between two lock upgrades): eight processes opening one new store at once lost one of them
  // about once in forty runs on a loaded 2-core VM.
  Status exec(const char* sql) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
      const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) return Status::ok();
      const bool busy = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
      if (!busy || std::chrono::steady_clock::now() >= deadline) {
        return sqlite_error(db_, std::string(sql) + " failed on", path_);
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  }

  Status quick_check() {
    Statement check;
    if (check.prepare(db_, "PRAGMA quick_check") != SQLITE_OK) return sqlite_error(db_, "cannot check", path_);
    std::string verdict;
    int rc;
    while ((rc = sqlite3_step(check.get())) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(check.get(), 0));
      if (text && std::strcmp(text, "ok") != 0) verdict += std::string(verdict.empty() ? "" : "; ") + text;
    }
    if (rc != SQLITE_DONE) return sqlite_error(db_, "quick_check could not run on", path_);
    if (!verdict.empty()) return Status(ErrorCode::corrupt_data, path_ + " fails quick_check: " + verdict);
    return Status::ok();
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  Statement get_, put_;
  // One connection per store, used by one thread at a time (SQLITE_OPEN_NOMUTEX).
  std::mutex mutex_;
};

std::string corrupt_name(const std::string& path) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return path + ".corrupt-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
}

// Keeps the damaged file (and its WAL and shared-memory files) for a person to look at: a
// tuning store is cheap to rebuild, but deleting a file we failed to read is never our call.
Status move_aside(const std::string& path, const std::string& why) {
  const std::string target = corrupt_name(path);
  std::error_code ec;
  fs::rename(path, target, ec);
  if (ec) return Status(ErrorCode::io_error, "cannot rename corrupt " + path + " aside: " + ec.message());
  for (const char* suffix : {"-wal", "-shm"}) {
    if (fs::exists(path + suffix, ec)) fs::rename(path + suffix, target + suffix, ec);
  }
  std::fprintf(stderr, "gemmtune: warning: tuning store %s is corrupt (%s); moved aside to %s, starting a fresh one\n",
               path.c_str(), why.c_str(), target.c_str());
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<TuningStore>> open_sqlite_store(const std::string& path) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) return Status(ErrorCode::io_error, "cannot create " + parent.string() + ": " + ec.message());
  auto store = std::make_unique<SqliteStore>(path);
  Status opened = store->open();
  if (opened.code() == ErrorCode::corrupt_data) {
    store.reset();
    GEMMTUNE_RETURN_IF_ERROR(move_aside(path, opened.message()));
    store = std::make_unique<SqliteStore>(path);
    opened = store->open();
  }
  GEMMTUNE_RETURN_IF_ERROR(opened);
  return std::unique_ptr<TuningStore>(std::move(store));
}

}  // namespace gemmtune
