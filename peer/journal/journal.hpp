#pragma once
// A peer's durable state under --state-dir: SQLite in WAL mode with
// synchronous=FULL, so that what a transaction wrote survives a kill -9 or a
// power cut once it has committed. It holds whose state it is, the peer's
// incarnation (counted up at every start, so that job ids never repeat),
// what the core asked to keep (Persist outputs, one row per job and role:
// peer/core/durable.hpp) and the results not yet lost to the daemon's
// --max-results. Daemon-only: the core never touches it.
//
// Nothing read is taken on trust: every step of every read is checked (a
// damaged page is an error naming its table and row, never "no more rows"),
// every row passes the wire's bounds, and a file that exists but is not a
// journal -- empty, another database, not a database -- is refused rather
// than started afresh (a peer that lost its journal would repeat job ids).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "peer/core/durable.hpp"
#include "peer/journal/journal_codec.hpp"
#include "protocol/wire.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace gridpeer::daemon {

/// A journal that cannot be read or written. The text names the file,
/// SQLite's error and what was being read or written.
class JournalError : public std::runtime_error {
 public:
  JournalError(const std::string& what, bool damaged) : std::runtime_error(what), damaged_(damaged) {}
  /// The journal's content is damaged or not a journal (restarting does not
  /// help); otherwise the storage failed (a full disk, an I/O error).
  [[nodiscard]] bool damaged() const { return damaged_; }

 private:
  bool damaged_;
};

class Journal {
 public:
  /// Opens DIR/journal.sqlite for peer `self_name` of grid `grid_name`
  /// (`owner` says what its rows may name), or creates it when absent. A file
  /// that exists but is not a journal is refused, unless `init_state`
  /// (gridpeer --init-state) says this is a new member: then it is moved
  /// aside and a new journal made. Throws JournalError.
  static std::unique_ptr<Journal> open(const std::filesystem::path& dir, const std::string& self_name,
                                       const std::string& grid_name, JournalOwner owner, bool init_state);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  /// What open() found: "kept", "new", or "new: ..." saying what it moved aside.
  [[nodiscard]] const std::string& opened_as() const { return opened_as_; }

  /// The incarnation of this start, one more than the last (1 on a new
  /// journal), committed and synced before it is returned.
  std::uint64_t begin_incarnation();
  /// The grid's epoch (Unix us of virtual time 0) this peer last ran on, 0
  /// if none: a restarted peer keeps the grid's virtual time, so that what it
  /// kept (submit, start and finish times) stays in the past.
  std::int64_t epoch();
  void save_epoch(std::int64_t epoch_unix_us);
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

  /// What the last run kept, in key order (own jobs in the order they were
  /// submitted). Throws JournalError naming the table and row of a damaged entry.
  std::vector<std::pair<DurableKey, DurableJob>> entries();
  /// The results kept, in the order the jobs ended.
  std::vector<protocol::ResultRecord> results();
  /// One transaction, synced before it returns: the entries the core asked
  /// to keep or forget, and the results of jobs that ended, together.
  void commit(const std::vector<const Persist*>& persists, const std::vector<protocol::ResultRecord>& results);

  /// A member that joined the running grid, kept (synced) so that a restart
  /// from the static topology still knows every server its rows name.
  void save_member(const protocol::MemberCard& card);
  /// The members kept, by index; throws JournalError naming a damaged row.
  std::vector<protocol::MemberCard> members();
  /// The grid has this many servers now: rows may name any of them.
  void set_servers(std::size_t servers) { owner_.servers = std::max(owner_.servers, servers); }

 private:
  Journal(sqlite3* db, std::filesystem::path file, JournalOwner owner);
  /// Makes a new journal at `file` (written aside, then renamed into place,
  /// so that a journal.sqlite that exists was always made whole).
  static void create(const std::filesystem::path& file, const std::string& self_name, const std::string& grid_name);
  /// Refuses a database that is not a journal of this peer.
  void check_is_journal(const std::string& self_name, const std::string& grid_name);
  [[noreturn]] void fail(int code, const std::string& doing) const;
  void execute(const std::string& sql, const char* doing);
  /// The integer value of `key` in the peer table, if set.
  std::int64_t read_value(const std::string& key, std::int64_t otherwise);
  std::string read_text(const std::string& key);
  void write(const std::string& key, const std::string& text, std::int64_t value);

  /// A statement prepared once (finalized with the journal).
  sqlite3_stmt* prepare(const char* sql);
  void step_done(sqlite3_stmt* statement, const std::string& doing);

  sqlite3* db_;
  std::filesystem::path file_;
  JournalOwner owner_;
  std::string opened_as_ = "kept";
  sqlite3_stmt* put_ = nullptr;
  sqlite3_stmt* erase_ = nullptr;
  sqlite3_stmt* add_result_ = nullptr;
};

}  // namespace gridpeer::daemon
