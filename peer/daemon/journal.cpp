#include "peer/daemon/journal.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace gridpeer::daemon {

namespace {

/// A prepared statement, finalized however the scope ends.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::filesystem::path& file) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK) {
      throw std::runtime_error(file.string() + ": " + sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() { return statement_; }

 private:
  sqlite3_stmt* statement_ = nullptr;
};

}  // namespace

Journal::Journal(sqlite3* db, std::filesystem::path file) : db_(db), file_(std::move(file)) {}

Journal::~Journal() {
  sqlite3_close(db_);
}

std::unique_ptr<Journal> Journal::open(const std::filesystem::path& dir, const std::string& self_name,
                                       const std::string& grid_name) {
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made) throw std::runtime_error("--state-dir " + dir.string() + ": " + made.message());
  const std::filesystem::path file = dir / "journal.sqlite";
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    const std::string why = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error(file.string() + ": " + why);
  }
  std::unique_ptr<Journal> journal(new Journal(db, file));
  // WAL: a commit appends and syncs the log; FULL: it is synced at every
  // commit, so a committed transaction survives a power cut.
  journal->execute("PRAGMA journal_mode=WAL");
  journal->execute("PRAGMA synchronous=FULL");
  journal->execute("CREATE TABLE IF NOT EXISTS peer (key TEXT PRIMARY KEY, text TEXT, value INTEGER)");
  const std::string owner = journal->read_text("self");
  const std::string grid = journal->read_text("grid");
  if (owner.empty()) {
    journal->execute("BEGIN IMMEDIATE");
    journal->write("self", self_name, 0);
    journal->write("grid", grid_name, 0);
    journal->execute("COMMIT");
  } else if (owner != self_name || grid != grid_name) {
    throw std::runtime_error("--state-dir " + dir.string() + " holds the state of peer '" + owner + "' of grid '" +
                             grid + "', not of '" + self_name + "' of '" + grid_name +
                             "': give each peer a directory of its own");
  }
  return journal;
}

void Journal::execute(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error != nullptr ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw std::runtime_error(file_.string() + ": " + sql + ": " + why);
  }
}

std::int64_t Journal::read_value(const std::string& key, std::int64_t otherwise) {
  Statement select(db_, "SELECT value FROM peer WHERE key = ?1", file_);
  sqlite3_bind_text(select.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
  return sqlite3_step(select.get()) == SQLITE_ROW ? sqlite3_column_int64(select.get(), 0) : otherwise;
}

std::string Journal::read_text(const std::string& key) {
  Statement select(db_, "SELECT text FROM peer WHERE key = ?1", file_);
  sqlite3_bind_text(select.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(select.get()) != SQLITE_ROW) return {};
  const unsigned char* text = sqlite3_column_text(select.get(), 0);
  return text != nullptr ? reinterpret_cast<const char*>(text) : std::string();
}

void Journal::write(const std::string& key, const std::string& text, std::int64_t value) {
  Statement upsert(db_, "INSERT OR REPLACE INTO peer (key, text, value) VALUES (?1, ?2, ?3)", file_);
  sqlite3_bind_text(upsert.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(upsert.get(), 2, text.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(upsert.get(), 3, value);
  if (sqlite3_step(upsert.get()) != SQLITE_DONE) throw std::runtime_error(file_.string() + ": " + sqlite3_errmsg(db_));
}

std::uint64_t Journal::begin_incarnation() {
  execute("BEGIN IMMEDIATE");
  const std::int64_t next = read_value("incarnation", 0) + 1;
  write("incarnation", {}, next);
  execute("COMMIT");  // synced (synchronous=FULL) before any job of this start is numbered
  return static_cast<std::uint64_t>(next);
}

}  // namespace gridpeer::daemon
