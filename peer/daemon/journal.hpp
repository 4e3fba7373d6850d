#pragma once
// A peer's durable state under --state-dir (issue 19): SQLite in WAL mode
// with synchronous=FULL, so that what a transaction wrote survives a kill -9
// or a power cut once it has committed. Today it holds whose state it is
// and the peer's incarnation, counted up at every start, so that job ids
// never repeat across restarts; the jobs themselves come next
// (docs/roadmap.md, "Durability"). Daemon-only: the core never touches it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

struct sqlite3;

namespace gridpeer::daemon {

class Journal {
 public:
  /// Opens (or creates) DIR/journal.sqlite for peer `self_name` of grid
  /// `grid_name`. Throws std::runtime_error naming the file and SQLite's
  /// reason, or saying whose state the directory holds if not this peer's.
  static std::unique_ptr<Journal> open(const std::filesystem::path& dir, const std::string& self_name,
                                       const std::string& grid_name);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  /// The incarnation of this start, one more than the last (1 on a new
  /// journal), committed and synced before it is returned.
  std::uint64_t begin_incarnation();
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

 private:
  Journal(sqlite3* db, std::filesystem::path file);
  void execute(const std::string& sql);
  /// The integer value of `key` in the peer table, if set.
  std::int64_t read_value(const std::string& key, std::int64_t otherwise);
  std::string read_text(const std::string& key);
  void write(const std::string& key, const std::string& text, std::int64_t value);

  sqlite3* db_;
  std::filesystem::path file_;
};

}  // namespace gridpeer::daemon
