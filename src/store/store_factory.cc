// From options (and the environment) to a store.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

#include "tuning_store.h"

namespace gemmtune {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

Result<StoreMode> parse_store_mode(std::string_view name) {
  if (name == "rw") return StoreMode::read_write;
  if (name == "ro") return StoreMode::read_only;
  if (name == "off") return StoreMode::off;
  return invalid_argument("unknown store mode '" + std::string(name) + "' (expected rw, ro or off)");
}

std::string_view store_mode_name(StoreMode mode) {
  switch (mode) {
    case StoreMode::read_write: return "rw";
    case StoreMode::read_only: return "ro";
    case StoreMode::off: return "off";
  }
  return "?";
}

StoreOptions StoreOptions::from_env() {
  StoreOptions options;
  options.path = env("GEMMTUNE_CACHE");
  options.redis_url = env("GEMMTUNE_REDIS_URL");
  if (const std::string mode = env("GEMMTUNE_CACHE_MODE"); !mode.empty()) {
    auto parsed = parse_store_mode(mode);
    if (parsed.is_ok()) {
      options.mode = *parsed;
    } else {
      warn_once("GEMMTUNE_CACHE_MODE: " + parsed.status().message() + "; using rw");
    }
  }
  return options;
}

std::string StoreOptions::resolved_path() const {
  if (!path.empty()) return path;
  if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/gemmtune/tuning.sqlite";
  if (const std::string home = env("HOME"); !home.empty()) return home + "/.cache/gemmtune/tuning.sqlite";
  return "off";  // nowhere sensible to keep a file
}

Status StoreOptions::check() const {
  // A URL given where a file goes ("--cache redis://host:port" for --redis) made a SQLite file
  // under ./redis:/ and left the user thinking the fleet's store was in use.
  if (path.find("://") != std::string::npos) {
    return invalid_argument("the local tuning store is a SQLite file path (or off), not a URL: '" + path +
                            "'; a shared Redis store is given by --redis, GEMMTUNE_REDIS_URL or StoreOptions::redis_url");
  }
  return Status::ok();
}

#ifndef GEMMTUNE_HAVE_REDIS
bool redis_store_built() { return false; }

Result<std::unique_ptr<TuningStore>> open_redis_store(const std::string& url, int) {
  return unsupported("cannot use Redis store " + url + ": this build has no hiredis (GEMMTUNE_WITH_REDIS)");
}
#endif

Result<std::unique_ptr<TuningStore>> open_store(const StoreOptions& options) {
  if (options.mode == StoreMode::off) return std::unique_ptr<TuningStore>();
  std::unique_ptr<TuningStore> local;
  if (const std::string path = options.resolved_path(); path != "off") {
    GEMMTUNE_RETURN_IF_ERROR(options.check());
    // Read-only never creates a file (nor its folder) where there was none.
    std::error_code ec;
    if (options.mode == StoreMode::read_write || std::filesystem::exists(path, ec)) {
      GEMMTUNE_ASSIGN_OR_RETURN(local, open_sqlite_store(path));
    }
  }
  std::unique_ptr<TuningStore> remote;
  if (!options.redis_url.empty()) {
    auto opened = open_redis_store(options.redis_url);
    // A bad URL is reported like an unreachable server: a typo in a fleet setting must not
    // cost the machine its local store.
    if (opened.is_ok()) {
      remote = std::move(opened).value();
    } else {
      warn_once(opened.status().message() + "; carrying on with the local store only");
    }
  }
  if (local && remote) return make_tiered_store(std::move(local), std::move(remote));
  return local ? std::move(local) : std::move(remote);
}

}  // namespace gemmtune
