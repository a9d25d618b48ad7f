// The fleet's shared store: entries under "gemmtune:<key>" in one Redis database.
//
// Every connect and command has a short timeout: a lookup that waits on a slow network would
// cost more than the tuning it saves for small problems.
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <ctime>
#include <mutex>

#include "tuning_store.h"

namespace gemmtune {
namespace {

constexpr const char* kPrefix = "gemmtune:";

struct RedisAddress {
  std::string host;
  int port = 6379;
  int db = 0;
};

// redis://host[:port][/db]
Result<RedisAddress> parse_url(const std::string& url) {
  const std::string scheme = "redis://";
  if (url.rfind(scheme, 0) != 0) return invalid_argument("Redis URL '" + url + "' does not start with redis://");
  std::string rest = url.substr(scheme.size());
  RedisAddress address;
  auto to_int = [&](const std::string& text, int& out, const char* what) -> Status {
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      return invalid_argument("Redis URL '" + url + "' has a bad " + what + " '" + text + "'");
    }
    return Status::ok();
  };
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    GEMMTUNE_RETURN_IF_ERROR(to_int(rest.substr(slash + 1), address.db, "database number"));
    rest = rest.substr(0, slash);
  }
  if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    GEMMTUNE_RETURN_IF_ERROR(to_int(rest.substr(colon + 1), address.port, "port"));
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return invalid_argument("Redis URL '" + url + "' names no host");
  address.host = rest;
  return address;
}

// hiredis writes to the socket with write(): when the server has gone, that raises SIGPIPE,
// whose default action kills the process. Block it for this thread during the call and
// swallow one that arrived, leaving the program's own signal setup alone.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        sigtimedwait(&pipe_, nullptr, &zero);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisStore final : public TuningStore {
 public:
  RedisStore(std::string url, RedisAddress address, int timeout_ms)
      : url_(std::move(url)), address_(std::move(address)), timeout_ms_(timeout_ms) {}
  ~RedisStore() override { redisFree(context_); }

  Status connect() {
    const timeval timeout{timeout_ms_ / 1000, (timeout_ms_ % 1000) * 1000};
    context_ = redisConnectWithTimeout(address_.host.c_str(), address_.port, timeout);
    if (context_ == nullptr) return unavailable("cannot allocate a connection");
    if (context_->err) return unavailable(context_->errstr);
    redisSetTimeout(context_, timeout);
    GEMMTUNE_ASSIGN_OR_RETURN(Reply reply, command({"SELECT", std::to_string(address_.db)}));
    if (reply->type == REDIS_REPLY_ERROR) return unavailable(std::string("SELECT failed: ") + reply->str);
    return Status::ok();
  }

  std::string describe() const override { return "redis " + url_; }

  Result<std::string> get(const std::string& key) override {
    std::lock_guard lock(mutex_);
    GEMMTUNE_ASSIGN_OR_RETURN(Reply reply, command({"GET", kPrefix + key}));
    if (reply->type == REDIS_REPLY_NIL) return not_found("no entry " + key);
    if (reply->type != REDIS_REPLY_STRING) return unexpected(*reply);
    return std::string(reply->str, reply->len);
  }

  Status put(const std::string& key, const std::string& value) override {
    std::lock_guard lock(mutex_);
    GEMMTUNE_ASSIGN_OR_RETURN(Reply reply, command({"SET", kPrefix + key, value}));
    return reply->type == REDIS_REPLY_ERROR ? unexpected(*reply) : Status::ok();
  }

  Status put_all(const std::vector<StoreRecord>& records) override {
    if (records.empty()) return Status::ok();
    std::lock_guard lock(mutex_);
    // One MSET is atomic on the server: all records or none.
    std::vector<std::string> args = {"MSET"};
    for (const StoreRecord& record : records) {
      args.push_back(kPrefix + record.key);
      args.push_back(record.value);
    }
    GEMMTUNE_ASSIGN_OR_RETURN(Reply reply, command(args));
    return reply->type == REDIS_REPLY_ERROR ? unexpected(*reply) : Status::ok();
  }

  Result<std::vector<StoreRecord>> list() override {
    std::lock_guard lock(mutex_);
    GEMMTUNE_ASSIGN_OR_RETURN(std::vector<std::string> keys, scan_keys());
    std::vector<StoreRecord> records;
    for (const std::string& key : keys) {
      GEMMTUNE_ASSIGN_OR_RETURN(Reply reply, command({"GET", key}));
      if (reply->type != REDIS_REPLY_STRING) continue;  // deleted since the scan
      records.push_back({key.substr(std::string(kPrefix).size()), std::string(reply->str, reply->len)});
    }
    std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    return records;
  }

  Status clear() override {
    std::lock_guard lock(mutex_);
    GEMMTUNE_ASSIGN_OR_RETURN(std::vector<std::string> keys, scan_keys());
    for (const std::string& key : keys) {
      GEMMTUNE_ASSIGN_OR_RETURN(Reply reply, command({"DEL", key}));
    }
    return Status::ok();
  }

 private:
  static Status unavailable(const std::string& why) { return Status(ErrorCode::unavailable, "Redis: " + why); }
  Status unexpected(const redisReply& reply) const {
    return Status(ErrorCode::unavailable, "Redis " + url_ + " answered unexpectedly" +
                                              (reply.type == REDIS_REPLY_ERROR ? std::string(": ") + reply.str : ""));
  }

  // Binary-safe: keys hold '|' and spaces, values are arbitrary JSON.
  Result<Reply> command(const std::vector<std::string>& args) {
    if (context_ == nullptr || context_->err) return unavailable(url_ + " is not connected");
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const std::string& arg : args) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    SigpipeGuard guard;
    auto* raw = static_cast<redisReply*>(redisCommandArgv(context_, int(argv.size()), argv.data(), lengths.data()));
    if (raw == nullptr) return unavailable(url_ + ": " + (context_->err ? context_->errstr : "no reply"));
    return Reply(raw);
  }

  Result<std::vector<std::string>> scan_keys() {
    std::vector<std::string> keys;
    std::string cursor = "0";
    do {
      GEMMTUNE_ASSIGN_OR_RETURN(Reply reply, command({"SCAN", cursor, "MATCH", std::string(kPrefix) + "*", "COUNT", "500"}));
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2) return unexpected(*reply);
      cursor.assign(reply->element[0]->str, reply->element[0]->len);
      const redisReply* batch = reply->element[1];
      for (std::size_t i = 0; i < batch->elements; ++i) keys.emplace_back(batch->element[i]->str, batch->element[i]->len);
    } while (cursor != "0");
    return keys;
  }

  std::string url_;
  RedisAddress address_;
  int timeout_ms_;
  redisContext* context_ = nullptr;
  std::mutex mutex_;
};

}  // namespace

bool redis_store_built() { return true; }

Result<std::unique_ptr<TuningStore>> open_redis_store(const std::string& url, int timeout_ms) {
  GEMMTUNE_ASSIGN_OR_RETURN(RedisAddress address, parse_url(url));
  auto store = std::make_unique<RedisStore>(url, address, timeout_ms);
  Status connected = store->connect();
  if (!connected.is_ok()) return Status(connected.code(), "cannot reach " + url + ": " + connected.message());
  return std::unique_ptr<TuningStore>(std::move(store));
}

}  // namespace gemmtune
