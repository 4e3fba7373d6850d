#include "peer/journal/journal.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace gridpeer::daemon {

namespace {

/// Errors that say the file's content is wrong, not that the storage failed.
bool is_damage(int code) {
  switch (code & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
    case SQLITE_MISMATCH:
      return true;
    default:
      return false;
  }
}

std::string damaged_hint(const std::filesystem::path& file) {
  return "; the journal is damaged: restore " + file.parent_path().string() + " from a backup, or move " +
         file.string() + " aside to start this peer empty (what it kept is then lost)";
}

[[noreturn]] void raise(sqlite3* db, const std::filesystem::path& file, int code, const std::string& doing) {
  std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  if (why != sqlite3_errstr(code)) why += " (" + std::string(sqlite3_errstr(code)) + ")";
  const bool damaged = is_damage(code);
  throw JournalError(file.string() + ": " + doing + ": SQLite error " + std::to_string(code) + ": " + why +
                         (damaged ? damaged_hint(file) : std::string()),
                     damaged);
}

/// A statement prepared for one use, finalized however the scope ends.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::filesystem::path& file, const std::string& doing) {
    const int code = sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr);
    if (code != SQLITE_OK) raise(db, file, code, doing);
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() { return statement_; }

 private:
  sqlite3_stmt* statement_ = nullptr;
};

sqlite3* open_file(const std::filesystem::path& file, int flags) {
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(file.c_str(), &db, flags | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (code != SQLITE_OK) {
    const std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close(db);
    throw JournalError(file.string() + ": opening: SQLite error " + std::to_string(code) + ": " + why, false);
  }
  return db;
}

void remove_with_logs(const std::filesystem::path& file) {
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(file.string() + suffix, ignored);
  }
}

/// Moves `file` (and SQLite's files beside it) to FILE.not-a-journal-SECONDS; the new name.
std::filesystem::path move_aside(const std::filesystem::path& file) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::filesystem::path aside = file.string() + ".not-a-journal-" + std::to_string(seconds);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code error;
    const std::filesystem::path from = file.string() + suffix;
    if (!std::filesystem::exists(from, error)) continue;
    std::filesystem::rename(from, aside.string() + suffix, error);
    if (error) throw JournalError(from.string() + ": moving it aside: " + error.message(), false);
  }
  return aside;
}

}  // namespace

Journal::Journal(sqlite3* db, std::filesystem::path file, JournalOwner owner)
    : db_(db), file_(std::move(file)), owner_(owner) {}

Journal::~Journal() {
  for (sqlite3_stmt* statement : {put_, erase_, add_result_}) sqlite3_finalize(statement);
  sqlite3_close(db_);
}

void Journal::create(const std::filesystem::path& file, const std::string& self_name, const std::string& grid_name) {
  const std::filesystem::path making = file.string() + ".creating";
  remove_with_logs(making);  // left by a start that died making it: it never held anything
  {
    Journal journal(open_file(making, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE), making, {});
    journal.execute("PRAGMA synchronous=FULL", "creating the journal");
    journal.execute("BEGIN IMMEDIATE", "creating the journal");
    journal.execute("CREATE TABLE peer (key TEXT PRIMARY KEY, text TEXT, value INTEGER)", "creating the journal");
    // role 0: own jobs, 1: others' jobs hosted here (DurableRole); body: journal_codec.hpp.
    journal.execute(
        "CREATE TABLE jobs (role INTEGER NOT NULL, id INTEGER NOT NULL, body TEXT NOT NULL, "
        "PRIMARY KEY (role, id)) WITHOUT ROWID",
        "creating the journal");
    journal.execute("CREATE TABLE results (seq INTEGER PRIMARY KEY, id INTEGER NOT NULL, body TEXT NOT NULL)",
                    "creating the journal");
    journal.write("self", self_name, 0);
    journal.write("grid", grid_name, 0);
    journal.write("incarnation", {}, 0);
    journal.execute("COMMIT", "creating the journal");
  }  // closed: the file holds all of it
  std::error_code error;
  std::filesystem::rename(making, file, error);
  if (error) throw JournalError(making.string() + ": renaming it to " + file.string() + ": " + error.message(), false);
}

std::unique_ptr<Journal> Journal::open(const std::filesystem::path& dir, const std::string& self_name,
                                       const std::string& grid_name, JournalOwner owner, bool init_state) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw JournalError("--state-dir " + dir.string() + ": " + error.message(), false);
  const std::filesystem::path file = dir / "journal.sqlite";
  std::string opened_as = "kept";
  const bool exists = std::filesystem::exists(file, error);
  if (!exists) {
    create(file, self_name, grid_name);
    opened_as = "new";
  } else if (std::filesystem::file_size(file, error) == 0 && !error) {
    // What a disk that lost the file's content, or a tool that truncated
    // it, leaves. Started afresh it would number jobs from incarnation 1 again.
    if (!init_state) {
      throw JournalError(file.string() +
                             " is empty (0 bytes), so it is not a journal: a peer that ran before has lost what it "
                             "kept, and its job ids could repeat. If this peer is new to the grid, remove the file or "
                             "start with --init-state",
                         true);
    }
    opened_as = "new: --init-state moved the empty file to " + move_aside(file).string();
    create(file, self_name, grid_name);
  }
  auto journal = std::unique_ptr<Journal>(new Journal(open_file(file, SQLITE_OPEN_READWRITE), file, owner));
  try {
    // WAL: a commit appends and syncs the log; FULL: it is synced at every
    // commit, so a committed transaction survives a power cut.
    journal->execute("PRAGMA journal_mode=WAL", "opening");
    journal->execute("PRAGMA synchronous=FULL", "opening");
    journal->check_is_journal(self_name, grid_name);
  } catch (const JournalError& e) {
    if (!e.damaged() || !init_state || opened_as != "kept") throw;
    journal.reset();
    const std::filesystem::path aside = move_aside(file);
    create(file, self_name, grid_name);
    journal = std::unique_ptr<Journal>(new Journal(open_file(file, SQLITE_OPEN_READWRITE), file, owner));
    journal->execute("PRAGMA journal_mode=WAL", "opening");
    journal->execute("PRAGMA synchronous=FULL", "opening");
    journal->check_is_journal(self_name, grid_name);
    opened_as = "new: --init-state moved what was there, not a journal, to " + aside.string();
  }
  if (init_state && opened_as == "kept") {
    throw std::runtime_error("--init-state: " + file.string() + " is the journal of peer '" + self_name +
                             "' (incarnation " + std::to_string(journal->read_value("incarnation", 0)) +
                             "), not a new member's; start without --init-state to recover from it, or move it "
                             "aside yourself to start empty");
  }
  journal->opened_as_ = opened_as;
  journal->put_ = journal->prepare("INSERT OR REPLACE INTO jobs (role, id, body) VALUES (?1, ?2, ?3)");
  journal->erase_ = journal->prepare("DELETE FROM jobs WHERE role = ?1 AND id = ?2");
  journal->add_result_ = journal->prepare("INSERT INTO results (id, body) VALUES (?1, ?2)");
  return journal;
}

void Journal::check_is_journal(const std::string& self_name, const std::string& grid_name) {
  {
    Statement tables(db_, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", file_,
                     "reading its tables");
    std::vector<std::string> names;
    int code = SQLITE_OK;
    while ((code = sqlite3_step(tables.get())) == SQLITE_ROW) {
      const unsigned char* name = sqlite3_column_text(tables.get(), 0);
      names.emplace_back(name != nullptr ? reinterpret_cast<const char*>(name) : "");
    }
    if (code != SQLITE_DONE) fail(code, "reading its tables");
    for (const char* table : {"jobs", "peer", "results"}) {
      if (std::find(names.begin(), names.end(), table) == names.end()) {
        throw JournalError(file_.string() + " is not a gridpeer journal: it has no table '" + table +
                               "'. If this peer is new to the grid, start it with --init-state (the file is moved "
                               "aside) or give it another --state-dir",
                           true);
      }
    }
  }
  const std::string owner = read_text("self");
  const std::string grid = read_text("grid");
  if (owner.empty() || read_value("incarnation", -1) < 0) {
    throw JournalError(
        file_.string() + " is not a whole gridpeer journal: it names no owner or no incarnation" + damaged_hint(file_),
        true);
  }
  if (owner != self_name || grid != grid_name) {
    throw std::runtime_error("--state-dir " + file_.parent_path().string() + " holds the state of peer '" + owner +
                             "' of grid '" + grid + "', not of '" + self_name + "' of '" + grid_name +
                             "': give each peer a directory of its own");
  }
}

void Journal::fail(int code, const std::string& doing) const {
  raise(db_, file_, code, doing);
}

void Journal::execute(const std::string& sql, const char* doing) {
  char* error = nullptr;
  const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  sqlite3_free(error);  // sqlite3_errmsg says the same
  if (code != SQLITE_OK) fail(code, std::string(doing) + " (" + sql + ")");
}

std::int64_t Journal::read_value(const std::string& key, std::int64_t otherwise) {
  const std::string doing = "reading '" + key + "' from table peer";
  Statement select(db_, "SELECT value FROM peer WHERE key = ?1", file_, doing);
  sqlite3_bind_text(select.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
  const int code = sqlite3_step(select.get());
  if (code == SQLITE_ROW) return sqlite3_column_int64(select.get(), 0);
  if (code == SQLITE_DONE) return otherwise;
  fail(code, doing);
}

std::string Journal::read_text(const std::string& key) {
  const std::string doing = "reading '" + key + "' from table peer";
  Statement select(db_, "SELECT text FROM peer WHERE key = ?1", file_, doing);
  sqlite3_bind_text(select.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
  const int code = sqlite3_step(select.get());
  if (code == SQLITE_DONE) return {};
  if (code != SQLITE_ROW) fail(code, doing);
  const unsigned char* text = sqlite3_column_text(select.get(), 0);
  return text != nullptr ? reinterpret_cast<const char*>(text) : std::string();
}

void Journal::write(const std::string& key, const std::string& text, std::int64_t value) {
  const std::string doing = "writing '" + key + "' to table peer";
  Statement upsert(db_, "INSERT OR REPLACE INTO peer (key, text, value) VALUES (?1, ?2, ?3)", file_, doing);
  sqlite3_bind_text(upsert.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(upsert.get(), 2, text.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(upsert.get(), 3, value);
  const int code = sqlite3_step(upsert.get());
  if (code != SQLITE_DONE) fail(code, doing);
}

std::uint64_t Journal::begin_incarnation() {
  execute("BEGIN IMMEDIATE", "counting this start's incarnation");
  try {
    const std::int64_t next = read_value("incarnation", 0) + 1;
    write("incarnation", {}, next);
    execute("COMMIT", "counting this start's incarnation");  // synced before any job of this start is numbered
    return static_cast<std::uint64_t>(next);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::int64_t Journal::epoch() {
  return read_value("epoch_unix_us", 0);
}

void Journal::save_epoch(std::int64_t epoch_unix_us) {
  execute("BEGIN IMMEDIATE", "saving the grid's epoch");
  try {
    write("epoch_unix_us", {}, epoch_unix_us);
    execute("COMMIT", "saving the grid's epoch");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void Journal::save_member(const protocol::MemberCard& card) {
  const std::string doing = "keeping member " + card.name;
  execute("BEGIN IMMEDIATE", doing.c_str());
  try {
    write("member " + std::to_string(card.index), encode_member(card), card.index);
    execute("COMMIT", doing.c_str());
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<protocol::MemberCard> Journal::members() {
  const std::string doing = "reading the members kept in table peer";
  Statement select(db_, "SELECT value, text FROM peer WHERE key LIKE 'member %' ORDER BY value", file_, doing);
  std::vector<protocol::MemberCard> members;
  while (true) {
    const int code = sqlite3_step(select.get());
    if (code == SQLITE_DONE) return members;
    if (code != SQLITE_ROW) fail(code, doing);
    const std::int64_t index = sqlite3_column_int64(select.get(), 0);
    const unsigned char* text = sqlite3_column_text(select.get(), 1);
    try {
      if (index < 0 || index >= static_cast<std::int64_t>(protocol::kMaxPeers)) {
        throw std::runtime_error("index " + std::to_string(index) + " is out of bounds");
      }
      members.push_back(
          decode_member(text != nullptr ? reinterpret_cast<const char*>(text) : "", static_cast<ServerIndex>(index)));
    } catch (const std::runtime_error& e) {
      throw JournalError(
          file_.string() + ": the journal is damaged: table peer, member " + std::to_string(index) + ": " + e.what(),
          true);
    }
  }
}

sqlite3_stmt* Journal::prepare(const char* sql) {
  sqlite3_stmt* statement = nullptr;
  const int code = sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr);
  if (code != SQLITE_OK) fail(code, std::string("preparing ") + sql);
  return statement;
}

void Journal::step_done(sqlite3_stmt* statement, const std::string& doing) {
  const int code = sqlite3_step(statement);
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
  if (code != SQLITE_DONE) fail(code, doing);
}

std::vector<std::pair<DurableKey, DurableJob>> Journal::entries() {
  std::vector<std::pair<DurableKey, DurableJob>> kept;
  Statement select(db_, "SELECT role, id, body FROM jobs ORDER BY role, id", file_, "reading table jobs");
  std::string last = "at its first row";
  int code = SQLITE_OK;
  while ((code = sqlite3_step(select.get())) == SQLITE_ROW) {
    const std::int64_t role = sqlite3_column_int64(select.get(), 0);
    const auto id = static_cast<JobId>(sqlite3_column_int64(select.get(), 1));
    const unsigned char* body = sqlite3_column_text(select.get(), 2);
    const std::string row = "row (role " + std::to_string(role) + ", id " + std::to_string(id) + ")";
    try {
      if (role != 0 && role != 1) throw std::runtime_error("unknown role");
      const DurableRole durable_role = role == 0 ? DurableRole::own : DurableRole::hosted;
      DurableJob entry = decode_entry(body != nullptr ? reinterpret_cast<const char*>(body) : "", durable_role, owner_);
      if (entry.job.id != id) throw std::runtime_error("its job is " + std::to_string(entry.job.id));
      kept.emplace_back(DurableKey{durable_role, id}, entry);
    } catch (const std::runtime_error& e) {
      throw JournalError(file_.string() + ": table jobs, " + row + ": " + e.what() + damaged_hint(file_), true);
    }
    last = "after " + row;
  }
  if (code != SQLITE_DONE) fail(code, "reading table jobs, " + last);
  return kept;
}

std::vector<protocol::ResultRecord> Journal::results() {
  std::vector<protocol::ResultRecord> kept;
  Statement select(db_, "SELECT seq, body FROM results ORDER BY seq", file_, "reading table results");
  std::string last = "at its first row";
  int code = SQLITE_OK;
  while ((code = sqlite3_step(select.get())) == SQLITE_ROW) {
    const std::string row = "row " + std::to_string(sqlite3_column_int64(select.get(), 0));
    const unsigned char* body = sqlite3_column_text(select.get(), 1);
    try {
      kept.push_back(decode_result(body != nullptr ? reinterpret_cast<const char*>(body) : "", owner_));
    } catch (const std::runtime_error& e) {
      throw JournalError(file_.string() + ": table results, " + row + ": " + e.what() + damaged_hint(file_), true);
    }
    last = "after " + row;
  }
  if (code != SQLITE_DONE) fail(code, "reading table results, " + last);
  return kept;
}

namespace {

/// "writing 3 job entries and 1 result (the first: own job 12 kept as
/// committed)": what a failed commit was about, for the operator.
std::string batch_text(const std::vector<const Persist*>& persists,
                       const std::vector<protocol::ResultRecord>& results) {
  static constexpr const char* kPhases[] = {"accepted", "committed", "hosting", "ran"};
  std::string text =
      "writing " + std::to_string(persists.size()) + " job entries and " + std::to_string(results.size()) + " results";
  if (!persists.empty()) {
    const Persist& first = *persists.front();
    text += std::string(" (the first: ") + (first.key.role == DurableRole::own ? "own" : "hosted") + " job " +
            std::to_string(first.key.job) +
            (first.entry ? std::string(" kept as ") + kPhases[static_cast<int>(first.entry->phase)]
                         : std::string(" forgotten")) +
            ")";
  } else if (!results.empty()) {
    text += " (the first: job " + std::to_string(results.front().record.id) + ")";
  }
  return text;
}

}  // namespace

void Journal::commit(const std::vector<const Persist*>& persists, const std::vector<protocol::ResultRecord>& results) {
  if (persists.empty() && results.empty()) return;
  try {
    execute("BEGIN IMMEDIATE", "beginning a transaction");
    for (const Persist* persist : persists) {
      const int role = persist->key.role == DurableRole::own ? 0 : 1;
      const auto id = static_cast<std::int64_t>(persist->key.job);
      if (persist->entry) {
        const std::string body = encode_entry(*persist->entry);
        sqlite3_bind_int(put_, 1, role);
        sqlite3_bind_int64(put_, 2, id);
        sqlite3_bind_text(put_, 3, body.c_str(), static_cast<int>(body.size()), SQLITE_TRANSIENT);
        step_done(put_, "writing a row of table jobs");
      } else {
        sqlite3_bind_int(erase_, 1, role);
        sqlite3_bind_int64(erase_, 2, id);
        step_done(erase_, "erasing a row of table jobs");
      }
    }
    for (const protocol::ResultRecord& result : results) {
      const std::string body = encode_result(result);
      sqlite3_bind_int64(add_result_, 1, static_cast<std::int64_t>(result.record.id));
      sqlite3_bind_text(add_result_, 2, body.c_str(), static_cast<int>(body.size()), SQLITE_TRANSIENT);
      step_done(add_result_, "writing a row of table results");
    }
    // WAL appended and synced (synchronous=FULL) before anything it guards is sent.
    execute("COMMIT", "committing");
  } catch (const JournalError& e) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw JournalError(std::string(e.what()) + ", " + batch_text(persists, results), e.damaged());
  }
}

}  // namespace gridpeer::daemon
