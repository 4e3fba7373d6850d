#include "peer/daemon/journal.hpp"

#include <sqlite3.h>

#include <stdexcept>

#include "peer/daemon/journal_codec.hpp"

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
  for (sqlite3_stmt* statement : {put_, erase_, add_result_}) sqlite3_finalize(statement);
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
  // role 0: own jobs, 1: others' jobs hosted here (DurableRole); body: journal_codec.hpp.
  journal->execute(
      "CREATE TABLE IF NOT EXISTS jobs (role INTEGER NOT NULL, id INTEGER NOT NULL, body TEXT NOT NULL, "
      "PRIMARY KEY (role, id)) WITHOUT ROWID");
  journal->execute(
      "CREATE TABLE IF NOT EXISTS results (seq INTEGER PRIMARY KEY, id INTEGER NOT NULL, body TEXT NOT NULL)");
  journal->put_ = journal->prepare("INSERT OR REPLACE INTO jobs (role, id, body) VALUES (?1, ?2, ?3)");
  journal->erase_ = journal->prepare("DELETE FROM jobs WHERE role = ?1 AND id = ?2");
  journal->add_result_ = journal->prepare("INSERT INTO results (id, body) VALUES (?1, ?2)");
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

std::int64_t Journal::epoch() {
  return read_value("epoch_unix_us", 0);
}

void Journal::save_epoch(std::int64_t epoch_unix_us) {
  execute("BEGIN IMMEDIATE");
  write("epoch_unix_us", {}, epoch_unix_us);
  execute("COMMIT");
}

sqlite3_stmt* Journal::prepare(const char* sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) {
    throw std::runtime_error(file_.string() + ": " + sqlite3_errmsg(db_));
  }
  return statement;
}

void Journal::step_done(sqlite3_stmt* statement) {
  const int done = sqlite3_step(statement);
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
  if (done != SQLITE_DONE) throw std::runtime_error(file_.string() + ": " + sqlite3_errmsg(db_));
}

std::vector<std::pair<DurableKey, DurableJob>> Journal::entries() {
  std::vector<std::pair<DurableKey, DurableJob>> kept;
  Statement select(db_, "SELECT role, id, body FROM jobs ORDER BY role, id", file_);
  while (sqlite3_step(select.get()) == SQLITE_ROW) {
    const std::int64_t role = sqlite3_column_int64(select.get(), 0);
    const auto id = static_cast<JobId>(sqlite3_column_int64(select.get(), 1));
    const unsigned char* body = sqlite3_column_text(select.get(), 2);
    const std::string where =
        file_.string() + ": jobs row (role " + std::to_string(role) + ", id " + std::to_string(id) + ")";
    if (role != 0 && role != 1) throw std::runtime_error(where + ": unknown role");
    try {
      DurableJob entry = decode_entry(body != nullptr ? reinterpret_cast<const char*>(body) : "");
      if (entry.job.id != id) throw std::runtime_error("its job is " + std::to_string(entry.job.id));
      kept.emplace_back(DurableKey{role == 0 ? DurableRole::own : DurableRole::hosted, id}, entry);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(where + ": " + e.what() + "; the journal is damaged (move it aside to start empty)");
    }
  }
  return kept;
}

std::vector<protocol::ResultRecord> Journal::results() {
  std::vector<protocol::ResultRecord> kept;
  Statement select(db_, "SELECT seq, body FROM results ORDER BY seq", file_);
  while (sqlite3_step(select.get()) == SQLITE_ROW) {
    const unsigned char* body = sqlite3_column_text(select.get(), 1);
    try {
      kept.push_back(decode_result(body != nullptr ? reinterpret_cast<const char*>(body) : ""));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(file_.string() + ": results row " +
                               std::to_string(sqlite3_column_int64(select.get(), 0)) + ": " + e.what() +
                               "; the journal is damaged (move it aside to start empty)");
    }
  }
  return kept;
}

void Journal::commit(const std::vector<const Persist*>& persists, const std::vector<protocol::ResultRecord>& results) {
  if (persists.empty() && results.empty()) return;
  execute("BEGIN IMMEDIATE");
  try {
    for (const Persist* persist : persists) {
      const int role = persist->key.role == DurableRole::own ? 0 : 1;
      const auto id = static_cast<std::int64_t>(persist->key.job);
      if (persist->entry) {
        const std::string body = encode_entry(*persist->entry);
        sqlite3_bind_int(put_, 1, role);
        sqlite3_bind_int64(put_, 2, id);
        sqlite3_bind_text(put_, 3, body.c_str(), static_cast<int>(body.size()), SQLITE_TRANSIENT);
        step_done(put_);
      } else {
        sqlite3_bind_int(erase_, 1, role);
        sqlite3_bind_int64(erase_, 2, id);
        step_done(erase_);
      }
    }
    for (const protocol::ResultRecord& result : results) {
      const std::string body = encode_result(result);
      sqlite3_bind_int64(add_result_, 1, static_cast<std::int64_t>(result.record.id));
      sqlite3_bind_text(add_result_, 2, body.c_str(), static_cast<int>(body.size()), SQLITE_TRANSIENT);
      step_done(add_result_);
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  execute("COMMIT");  // WAL appended and synced (synchronous=FULL) before anything it guards is sent
}

}  // namespace gridpeer::daemon
