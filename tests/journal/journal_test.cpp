#define BOOST_TEST_MODULE journal
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peer/journal/journal.hpp"
#include "peer/journal/journal_codec.hpp"
#include "peer/journal/state_lock.hpp"

using namespace gridpeer;
using namespace gridpeer::daemon;
namespace fs = std::filesystem;

namespace {

constexpr ServerIndex kSelf = 0;
const JournalOwner kOwner{kSelf, 3};

/// A directory of its own per test, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("gridpeer-journal-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  static int& counter() {
    static int n = 0;
    return n;
  }
};

std::unique_ptr<Journal> open_a(const fs::path& dir, bool init_state = false) {
  return Journal::open(dir, "A", "tiny", kOwner, init_state);
}

Job own_job(std::uint64_t n) {
  Job job;
  job.id = job_id_of(kSelf, job_sequence_of(1, n));
  job.origin = kSelf;
  job.submit = TimePoint{seconds(10 * static_cast<std::int64_t>(n))};
  job.cpus = 2;
  job.run_time = seconds(600);
  job.requested_time = seconds(900);
  job.input_bytes = 1000;
  job.output_bytes = 2000;
  return job;
}

protocol::ResultRecord result_of(const Job& job) {
  return {JobRecord::of(job, 1, job.submit + seconds(5), job.submit + seconds(605), job.submit + seconds(606)),
          JobOutcome::completed,
          {}};
}

/// Commits `jobs` own jobs as accepted and `results` results.
void fill(Journal& journal, std::uint64_t jobs, std::uint64_t results) {
  std::vector<Persist> persists;
  for (std::uint64_t n = 1; n <= jobs; ++n) {
    persists.push_back(
        {DurableKey{DurableRole::own, own_job(n).id}, DurableJob{DurableJob::Phase::accepted, own_job(n)}});
  }
  std::vector<const Persist*> pointers;
  for (const Persist& p : persists) pointers.push_back(&p);
  std::vector<protocol::ResultRecord> ended;
  for (std::uint64_t n = 1; n <= results; ++n) ended.push_back(result_of(own_job(1000 + n)));
  journal.commit(pointers, ended);
}

/// Runs SQL on the journal file behind the peer's back (as a damaged disk or
/// a hand edit would).
void edit(const fs::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  BOOST_REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  const int code = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  BOOST_REQUIRE_MESSAGE(code == SQLITE_OK, (error != nullptr ? error : "") << " in " << sql);
  sqlite3_free(error);
  sqlite3_close(db);
}

/// Overwrites the root page of `table` with 0xFF bytes: the page a damaged
/// sector leaves.
void damage_root_page(const fs::path& file, const std::string& table) {
  sqlite3* db = nullptr;
  BOOST_REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  sqlite3_stmt* select = nullptr;
  sqlite3_prepare_v2(db, ("SELECT rootpage FROM sqlite_master WHERE name = '" + table + "'").c_str(), -1, &select,
                     nullptr);
  BOOST_REQUIRE(sqlite3_step(select) == SQLITE_ROW);
  const auto root = sqlite3_column_int64(select, 0);
  sqlite3_finalize(select);
  sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &select, nullptr);
  BOOST_REQUIRE(sqlite3_step(select) == SQLITE_ROW);
  const auto page_size = sqlite3_column_int64(select, 0);
  sqlite3_finalize(select);
  sqlite3_close(db);
  BOOST_REQUIRE(root > 1);
  std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
  out.seekp((root - 1) * page_size);
  const std::string garbage(static_cast<std::size_t>(page_size), '\xff');
  out.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

/// The text of the JournalError `action` throws (fails the test if none).
template <class Action>
std::pair<std::string, bool> journal_error(Action action) {
  try {
    action();
  } catch (const JournalError& e) {
    return {e.what(), e.damaged()};
  }
  BOOST_FAIL("no JournalError");
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_new_journal_counts_starts_and_keeps_what_was_committed) {
  TempDir dir;
  {
    auto journal = open_a(dir.path);
    BOOST_TEST(journal->opened_as() == "new");
    BOOST_TEST(journal->begin_incarnation() == 1U);
    fill(*journal, 3, 2);
  }
  auto journal = open_a(dir.path);
  BOOST_TEST(journal->opened_as() == "kept");
  BOOST_TEST(journal->begin_incarnation() == 2U);
  const auto kept = journal->entries();
  BOOST_REQUIRE(kept.size() == 3U);
  BOOST_TEST((kept[1].second.job == own_job(2)));
  const auto results = journal->results();
  BOOST_REQUIRE(results.size() == 2U);
  BOOST_TEST(results[0].record.id == own_job(1001).id);
  BOOST_TEST(results[0].record.executed_on == 1U);
}

// Numbers a hand-edited or damaged row may hold in an integer field: beyond
// 64 bits (parsed as a float: converting it was undefined), a float, a
// negative count. Each is refused by name, never cast.
BOOST_AUTO_TEST_CASE(an_integer_field_out_of_its_range_is_refused_by_name) {
  const JournalOwner owner{0, 3};
  const std::string good = encode_entry(DurableJob{DurableJob::Phase::accepted, own_job(7)});
  BOOST_REQUIRE_NO_THROW(decode_entry(good, DurableRole::own, owner));
  const auto with = [&](const std::string& field, const std::string& value) {
    nlohmann::json row = nlohmann::json::parse(good);
    row["job"][field] = nlohmann::json::parse(value);
    return row.dump();
  };
  const auto refused = [&](const std::string& text, const std::string& field) {
    try {
      decode_entry(text, DurableRole::own, owner);
    } catch (const std::exception& e) {
      BOOST_TEST(contains(e.what(), "field '" + field + "' is not an integer within its range"), e.what());
      return;
    }
    BOOST_FAIL("decoded: " + text);
  };
  refused(with("id", "6e56"), "id");
  refused(with("id", "-1"), "id");
  refused(with("bag", "1.5"), "bag");
  refused(with("bag", "4294967296"), "bag");
  refused(with("input_bytes", "-5"), "input_bytes");
  refused(with("run_us", "9223372036854775808"), "run_us");
}

// A split job's result keeps its parts (co-allocation among peers); a result
// whose parts do not add up to the job's CPUs is refused by name.
BOOST_AUTO_TEST_CASE(a_split_jobs_result_keeps_its_parts) {
  TempDir dir;
  {
    auto journal = open_a(dir.path);
    protocol::ResultRecord split = result_of(own_job(1001));
    split.parts = {{0, 1, 1.0}, {2, 1, 0.675}};
    journal->commit({}, {split});
  }
  auto journal = open_a(dir.path);
  const auto results = journal->results();
  BOOST_REQUIRE(results.size() == 1U);
  BOOST_TEST((results[0].parts == std::vector<protocol::ResultPart>{{0, 1, 1.0}, {2, 1, 0.675}}),
             boost::test_tools::per_element());
  {
    protocol::ResultRecord wrong = result_of(own_job(1002));
    wrong.parts = {{0, 1, 1.0}, {2, 2, 1.0}};  // 3 CPUs of a 2-CPU job
    journal->commit({}, {wrong});
  }
  BOOST_TEST(contains(journal_error([&] { journal->results(); }).first, "parts do not add up"));
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_a_journal_is_refused_unless_the_peer_is_new) {
  // A 0-byte journal.sqlite started as a new journal at incarnation 1, so
  // ids could repeat those of the peer's earlier runs.
  TempDir dir;
  const fs::path file = dir.path / "journal.sqlite";
  std::ofstream(file).close();
  const auto [empty, empty_damaged] = journal_error([&] { open_a(dir.path); });
  BOOST_TEST(empty_damaged);
  BOOST_TEST(contains(empty, file.string() + " is empty (0 bytes)"), empty);
  BOOST_TEST(contains(empty, "--init-state"), empty);
  BOOST_TEST(fs::file_size(file) == 0U);  // left as it was
  // --init-state: the empty file moved aside, a new journal made.
  {
    auto journal = open_a(dir.path, true);
    BOOST_TEST(contains(journal->opened_as(), "moved the empty file to"), journal->opened_as());
    BOOST_TEST(journal->begin_incarnation() == 1U);
  }
  // Text where the journal should be: not a database.
  TempDir text_dir;
  std::ofstream(text_dir.path / "journal.sqlite") << "this is not a journal, but it is long enough to be read as one\n";
  const auto [text, text_damaged] = journal_error([&] { open_a(text_dir.path); });
  BOOST_TEST(text_damaged);
  BOOST_TEST(contains(text, "file is not a database"), text);
  BOOST_TEST(open_a(text_dir.path, true)->opened_as().find("not a journal, to") != std::string::npos);
  // Another program's database.
  TempDir other_dir;
  edit(other_dir.path / "journal.sqlite", "CREATE TABLE t (x); INSERT INTO t VALUES (1)");
  const auto [other, other_damaged] = journal_error([&] { open_a(other_dir.path); });
  BOOST_TEST(other_damaged);
  BOOST_TEST(contains(other, "is not a gridpeer journal: it has no table 'jobs'"), other);
}

BOOST_AUTO_TEST_CASE(init_state_never_replaces_a_journal) {
  TempDir dir;
  {
    auto journal = open_a(dir.path);
    journal->begin_incarnation();
    fill(*journal, 2, 0);
  }
  try {
    open_a(dir.path, true);
    BOOST_FAIL("--init-state replaced a journal");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), "is the journal of peer 'A' (incarnation 1)"), e.what());
  }
  BOOST_TEST(open_a(dir.path)->entries().size() == 2U);  // still there
}

BOOST_AUTO_TEST_CASE(another_peers_journal_is_refused) {
  TempDir dir;
  open_a(dir.path)->begin_incarnation();
  try {
    Journal::open(dir.path, "B", "tiny", JournalOwner{1, 3}, false);
    BOOST_FAIL("B took A's journal");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), "holds the state of peer 'A' of grid 'tiny'"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_damaged_page_is_an_error_naming_its_table_never_no_more_rows) {
  // With a damaged jobs page a peer started with "recovered 0" while three
  // acknowledged jobs were gone; with a damaged results page, 0 of 19 results.
  for (const std::string table : {"jobs", "results"}) {
    TempDir dir;
    {
      auto journal = open_a(dir.path);
      journal->begin_incarnation();
      fill(*journal, 3, 19);
    }
    damage_root_page(dir.path / "journal.sqlite", table);
    auto journal = open_a(dir.path);
    const auto [text, damaged] = journal_error([&] {
      if (table == "jobs") {
        journal->entries();
      } else {
        journal->results();
      }
    });
    BOOST_TEST(damaged);
    BOOST_TEST(contains(text, "reading table " + table), text);
    BOOST_TEST(contains(text, "the journal is damaged"), text);
  }
}

BOOST_AUTO_TEST_CASE(rows_are_checked_like_wire_values) {
  // A results row with "cpus": -8 passed start-up, and from then on every
  // results reply of the peer was refused by gridctl.
  const auto refused = [](const std::string& sql, bool results, const std::string& part) {
    TempDir dir;
    {
      auto journal = open_a(dir.path);
      journal->begin_incarnation();
      fill(*journal, 2, 2);
    }
    edit(dir.path / "journal.sqlite", sql);
    auto journal = open_a(dir.path);
    const auto [text, damaged] = journal_error([&] {
      if (results) {
        journal->results();
      } else {
        journal->entries();
      }
    });
    BOOST_TEST(damaged);
    BOOST_TEST(contains(text, part), text);
  };
  refused("UPDATE results SET body = json_set(body, '$.cpus', -8) WHERE seq = 2", true,
          "table results, row 2: cpus must be between 1 and 1048576, not -8");
  refused("UPDATE results SET body = json_set(body, '$.executed_on', 7)", true,
          "executed_on 7 is not a server of the grid (3 servers)");
  refused("UPDATE results SET body = json_set(body, '$.end_us', 9223372036854775807)", true,
          "result.endUs is beyond 10,000 years");
  refused("UPDATE jobs SET body = json_set(body, '$.job.run_us', -1)", false,
          "job.runUs must be between 0 and 10 years");
  refused("UPDATE jobs SET body = json_set(body, '$.phase', 'committed', '$.executor', 9, '$.attempt', 1)", false,
          "executor 9 is not a server of the grid");
  refused("UPDATE jobs SET body = json_set(body, '$.phase', 'hosting', '$.origin_mhz', 500)", false,
          "phase hosting in an own job's row");
  refused("UPDATE jobs SET body = 'not json'", false, "not a JSON object");
}

BOOST_AUTO_TEST_CASE(members_that_joined_are_kept_and_widen_what_rows_may_name) {
  // The grid of 3 grew by member D (index 3): a row naming executor 3 is
  // refused until the journal is told the grid's size, and D is read back
  // at the next start as it was kept.
  TempDir dir;
  {
    auto journal = open_a(dir.path);
    journal->begin_incarnation();
    fill(*journal, 1, 1);
    journal->save_member(protocol::MemberCard{"D", "127.0.0.1:8080", ServerSpec{"D", 16, 1, 1000, 2}, 3});
  }
  edit(dir.path / "journal.sqlite", "UPDATE results SET body = json_set(body, '$.executed_on', 3)");
  auto journal = open_a(dir.path);
  const auto members = journal->members();
  BOOST_TEST_REQUIRE(members.size() == 1U);
  BOOST_TEST(members[0].name == "D");
  BOOST_TEST(members[0].index == 3U);
  BOOST_TEST(members[0].address == "127.0.0.1:8080");
  BOOST_TEST(members[0].server.nodes == 16);
  BOOST_TEST(members[0].server.mhz == 1000);
  BOOST_TEST(members[0].server.site == 2);
  BOOST_TEST(contains(journal_error([&] { journal->results(); }).first, "executed_on 3 is not a server of the grid"));
  journal->set_servers(4);
  BOOST_TEST(journal->results().at(0).record.executed_on == 3U);
  // A member row out of bounds is damage, named.
  journal.reset();
  edit(dir.path / "journal.sqlite", "UPDATE peer SET text = json_set(text, '$.mhz', 0) WHERE key = 'member 3'");
  journal = open_a(dir.path);
  const auto [text, damaged] = journal_error([&] { journal->members(); });
  BOOST_TEST(damaged);
  BOOST_TEST(contains(text, "table peer, member 3: mhz"), text);
}

BOOST_AUTO_TEST_CASE(a_write_the_disk_refuses_is_an_error_naming_the_file_and_what_was_written) {
  // A full disk made a peer hang without a word. Here the disk is "full" by
  // the file-size limit (RLIMIT_FSIZE: no root needed); the daemon exits on
  // this error (tests/peer/disk_full_test.sh checks that on a real tmpfs).
  TempDir dir;
  auto journal = open_a(dir.path);
  journal->begin_incarnation();
  fill(*journal, 1, 0);
  const auto handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit before{};
  ::getrlimit(RLIMIT_FSIZE, &before);
  rlimit limited = before;
  limited.rlim_cur = 256 << 10;
  ::setrlimit(RLIMIT_FSIZE, &limited);
  std::string text;
  bool damaged = true;
  std::uint64_t committed = 1;
  for (std::uint64_t round = 0; round < 1000 && text.empty(); ++round) {
    try {
      fill(*journal, committed + 20, 0);
      committed += 20;
    } catch (const JournalError& e) {
      text = e.what();
      damaged = e.damaged();
    }
  }
  ::setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, handler);
  BOOST_REQUIRE_MESSAGE(!text.empty(), "no write failed under a 256 KiB file-size limit");
  BOOST_TEST(!damaged);
  BOOST_TEST(contains(text, (dir.path / "journal.sqlite").string()), text);
  BOOST_TEST(contains(text, "writing " + std::to_string(committed + 20) + " job entries and 0 results"), text);
  journal.reset();
  // Nothing of the failed transaction is kept, all of the ones before it is.
  BOOST_TEST(open_a(dir.path)->entries().size() == committed);
}

BOOST_AUTO_TEST_CASE(one_process_per_state_directory) {
  TempDir dir;
  const StateDirLock held = StateDirLock::take(dir.path);
  try {
    StateDirLock::take(dir.path);  // a second open file: refused as another process would be
    BOOST_FAIL("a second lock was granted");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), "is in use by another gridpeer (pid " + std::to_string(::getpid()) + ","), e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_lock_is_released_with_its_holder) {
  TempDir dir;
  { const StateDirLock held = StateDirLock::take(dir.path); }
  BOOST_CHECK_NO_THROW(StateDirLock::take(dir.path));
}
