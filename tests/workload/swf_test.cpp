#include <zlib.h>

#include <array>
#include <boost/test/unit_test.hpp>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "peer/io/traces/trace_file.hpp"
#include "peer/workload/swf.hpp"
#include "trace_dir.hpp"

using namespace gridpeer::workload;

BOOST_AUTO_TEST_SUITE(swf)

BOOST_AUTO_TEST_CASE(parses_all_eighteen_fields) {
  const SwfRecord r =
      parse_swf_line("   13   567314  15757   8071    8   7334.5    -1    8  64800    -1  1 150   6 13592  4 -1 -1 -1");
  BOOST_TEST(r.job_number == 13);
  BOOST_TEST(r.submit_time == 567314);
  BOOST_TEST(r.wait_time == 15757);
  BOOST_TEST(r.run_time == 8071);
  BOOST_TEST(r.allocated_processors == 8);
  BOOST_TEST(r.average_cpu_time == 7334.5);
  BOOST_TEST(r.used_memory == -1);
  BOOST_TEST(r.requested_processors == 8);
  BOOST_TEST(r.requested_time == 64800);
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.user_id == 150);
  BOOST_TEST(r.group_id == 6);
  BOOST_TEST(r.executable == 13592);
  BOOST_TEST(r.queue == 4);
  BOOST_TEST(r.think_time == -1);
}

BOOST_AUTO_TEST_CASE(integral_decimals_are_accepted_and_others_refused) {
  BOOST_TEST(parse_swf_line("1 10.00 -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1").submit_time == 10);
  BOOST_CHECK_THROW(parse_swf_line("1 10.5 -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_swf_line("1 10 -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_swf_line("1 10 -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1 7"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_swf_line("1 ten -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_swf_line("1 10x -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_swf_line("1 - -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_swf_line("1 99999999999999999999 -1 5 1 -1 -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1"),
                    std::invalid_argument);  // beyond 64 bits
  // Long integers, integral decimals and exponents read as written.
  const SwfRecord wide =
      parse_swf_line("123456789012345678 1234567890123456789 -0 7.00 1 1e3 -2.5 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1");
  BOOST_TEST(wide.job_number == 123456789012345678);
  BOOST_TEST(wide.submit_time == 1234567890123456789);
  BOOST_TEST(wide.wait_time == 0);
  BOOST_TEST(wide.run_time == 7);
  BOOST_TEST(wide.average_cpu_time == 1000.0);
  BOOST_TEST(wide.used_memory == -2.5);
}

BOOST_AUTO_TEST_CASE(decimals_read_as_from_chars_reads_them) {
  // The split-and-convert pass reads plain decimals itself: bit for bit what
  // from_chars gives, over many lengths and places of the point.
  std::uint64_t state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::string digits = std::to_string(state >> 4).substr(0, 1 + (state >> 60) % 15);
    const std::size_t point = (state >> 20) % (digits.size() + 1);
    if (point > 0 && point < digits.size()) digits.insert(point, ".");
    if ((state >> 30) % 2 == 1) digits.insert(0, "-");
    const std::string line = "1 10 -1 5 1 " + digits + " -1 1 5 -1 1 -1 -1 -1 -1 -1 -1 -1";
    double expected = 0;
    std::from_chars(digits.data(), digits.data() + digits.size(), expected);
    BOOST_TEST_REQUIRE(parse_swf_line(line).average_cpu_time == expected, digits);
  }
}

BOOST_AUTO_TEST_CASE(integers_of_every_length_read_as_from_chars_reads_them) {
  // Integer fields of every length from 1 to 20 digits (past 15, where the
  // plain reading stops, and past 64 bits), with leading zeros, a sign, a
  // point with no fraction after it, and at the line's very end.
  std::uint64_t state = 777;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::size_t length = 1 + (state >> 59) % 20;
    std::string digits;
    std::uint64_t draw = state;
    for (std::size_t d = 0; d < length; ++d) {
      digits += static_cast<char>('0' + (draw >> 33) % 10);
      draw = draw * 6364136223846793005ULL + 1;
    }
    if ((state >> 20) % 4 == 0) digits.insert(0, "-");
    std::string written = digits;
    if ((state >> 24) % 8 == 0) {
      written += ".";
    } else if ((state >> 28) % 8 == 0) {
      written += ".000";
    }
    std::int64_t expected = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), expected);
    // An integral decimal is read as a double: only up to 9e15, where it is exact.
    const bool fits = error == std::errc{} && end == digits.data() + digits.size() &&
                      (written == digits || (expected <= 9'000'000'000'000'000 && expected >= -9'000'000'000'000'000));
    // As the first field, as a middle one after a tab, and as the last one.
    for (int place = 0; place < 3; ++place) {
      std::array<std::string, 18> fields{"1",  "10", "-1", "5",  "1",  "-1", "-1", "1",  "5",
                                         "-1", "1",  "-1", "-1", "-1", "-1", "-1", "-1", "-1"};
      const std::size_t at = place == 0 ? 0 : place == 1 ? 4 : 17;
      fields[at] = written;
      std::string line;
      for (std::size_t f = 0; f < fields.size(); ++f) line += (f == 0 ? "" : f == at ? "\t" : " ") + fields[f];
      BOOST_TEST_CONTEXT(line) {
        if (!fits) {
          BOOST_CHECK_THROW(parse_swf_line(line), std::invalid_argument);
          continue;
        }
        const SwfRecord r = parse_swf_line(line);
        const std::int64_t read = at == 0 ? r.job_number : at == 4 ? r.allocated_processors : r.think_time;
        BOOST_TEST_REQUIRE(read == expected);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reads_the_header) {
  std::istringstream in(
      "; Version: 2.2\n; Computer: IBM SP2\n; UnixStartTime: 893466664\n; MaxProcs: 128\n; MaxNodes: 128\n"
      ";  Queue:  0  interactive\n; Queue:  3  normal\n;\n"
      "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 3 -1 -1 -1\n\n"
      "2 60 5 100 4 -1 -1 4 200 -1 1 1 1 -1 0 -1 -1 -1\n");
  const SwfTrace trace = read_swf(in, "inline.swf");
  BOOST_TEST(trace.records.size() == 2U);
  BOOST_TEST(*trace.header.unix_start_time == 893466664);
  BOOST_TEST(*trace.header.max_procs == 128);
  BOOST_TEST(trace.header.computer == "IBM SP2");
  BOOST_REQUIRE(trace.header.queues.size() == 2U);
  BOOST_TEST(trace.header.queues[1].number == 3);
  BOOST_TEST(trace.header.queues[1].name == "normal");
  BOOST_TEST(trace.header.lines.size() == 8U);
  BOOST_TEST(trace.records[1].line == 11U);
}

BOOST_AUTO_TEST_CASE(a_malformed_line_names_the_file_and_line) {
  const std::string text = "; MaxProcs: 4\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 3 -1 -1 -1\n1 0 5 oops\n";
  std::istringstream in(text);
  try {
    read_swf(in, "broken.swf");
    BOOST_FAIL("expected an error");
  } catch (const SwfError& error) {
    BOOST_TEST(error.line() == 3U);
    BOOST_TEST(std::string(error.what()).find("broken.swf:3:") == 0U);
  }
  std::istringstream again(text + "3 9 5 100 4 -1 -1 4 200 -1 1 1 1 -1 3 -1 -1 -1\n");
  const SwfTrace kept = read_swf(again, "broken.swf", {true});
  BOOST_TEST(kept.records.size() == 2U);  // what was accepted is kept
  BOOST_TEST(kept.skipped_lines == 1U);
  BOOST_REQUIRE(kept.skip_reasons.size() == 1U);
  BOOST_TEST(kept.skip_reasons.front().find("broken.swf:3:") == 0U);
}

BOOST_AUTO_TEST_CASE(lines_across_read_blocks_crlf_and_a_last_line_without_newline) {
  // 30,000 job lines of ~45 bytes: about 1.3 MB, so lines straddle the
  // reader's 256 KiB blocks; CRLF endings; the last line has no newline.
  std::string text = "; MaxRecords: 30000\r\n";
  for (int job = 1; job <= 30'000; ++job) {
    text += std::to_string(job) + " " + std::to_string(job * 10) + " 5 100 4 -1 -1 4 200 -1 1 1 1 -1 3 -1 -1 -1";
    if (job < 30'000) text += "\r\n";
  }
  std::istringstream in(text);
  const SwfTrace trace = read_swf(in, "blocks.swf");
  BOOST_REQUIRE(trace.records.size() == 30'000U);
  for (std::size_t i = 0; i < trace.records.size(); ++i) {
    BOOST_REQUIRE(trace.records[i].job_number == static_cast<std::int64_t>(i + 1));
    BOOST_REQUIRE(trace.records[i].submit_time == static_cast<std::int64_t>((i + 1) * 10));
    BOOST_REQUIRE(trace.records[i].line == i + 2);
  }
  // A "line" of 2 MiB with no newline is refused, naming its line.
  std::istringstream endless("; a header\n" + std::string(std::size_t{2} << 20, '7'));
  try {
    read_swf(endless, "endless.swf");
    BOOST_FAIL("expected an error");
  } catch (const SwfError& error) {
    BOOST_TEST(error.line() == 2U);
    BOOST_TEST(std::string(error.what()).find("longer than 1 MiB") != std::string::npos);
  }
}

// Job lines per file, as published (shared/traces/README.md).
const std::map<std::string, std::size_t> kJobLines{
    {"CEA-Curie-2011-2.1-cln.swf.gz", 312826}, {"CTC-SP2-1996-3.1-cln.swf.gz", 77222},
    {"HPC2N-2002-2.2-cln.swf.gz", 202871},     {"KTH-SP2-1996-2.1-cln.swf.gz", 28476},
    {"LANL-CM5-1994-4.1-cln.swf.gz", 122060},  {"LCG-2005-1.swf.gz", 188041},
    {"LLNL-Atlas-2006-2.1-cln.swf.gz", 43778}, {"NASA-iPSC-1993-3.1-cln.swf.gz", 18239},
    {"SDSC-BLUE-2000-4.2-cln.swf.gz", 243306}, {"SDSC-Par-1996-3.1-cln.swf.gz", 32135},
    {"SDSC-SP2-1998-4.2-cln.swf.gz", 59715},   {"Sandia-Ross-2001-1.1-cln.swf.gz", 57882},
    {"synthetic/lublin_256.swf.gz", 10000}};

BOOST_AUTO_TEST_CASE(every_shared_trace_parses_completely, *boost::unit_test::precondition(traces_present())) {
  const auto dir = *test_trace_dir();
  std::size_t checked = 0;
  for (const auto& [name, expected] : kJobLines) {
    const auto path = dir / name;
    if (!std::filesystem::exists(path)) continue;
    // Count data lines independently of the parser, from the same stream.
    std::size_t data_lines = 0;
    {
      BOOST_TEST(gridpeer::traces::TraceFile(path).compressed());
      // zlib's own gzip reader, not the block reader under test.
      gzFile file = gzopen(path.c_str(), "rb");
      BOOST_REQUIRE(file != nullptr);
      std::array<char, 4096> line{};
      bool at_line_start = true;
      while (gzgets(file, line.data(), static_cast<int>(line.size())) != nullptr) {
        const std::string_view text(line.data());
        if (at_line_start) {
          const auto first = text.find_first_not_of(" \t\r");
          if (first != std::string_view::npos && text[first] != ';' && text[first] != '\n') ++data_lines;
        }
        at_line_start = !text.empty() && text.back() == '\n';
      }
      gzclose(file);
    }
    const SwfTrace trace = gridpeer::traces::load_swf_file(path);
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(trace.records.size() == expected);
      BOOST_TEST(data_lines == expected);
      BOOST_TEST(trace.skipped_lines == 0U);
      if (name.find("synthetic") == std::string::npos) {
        BOOST_TEST(trace.header.max_procs.has_value());
        BOOST_TEST(trace.header.unix_start_time.has_value());
      }
    }
    ++checked;
  }
  BOOST_TEST(checked == kJobLines.size(), "some shared traces are missing");
}

BOOST_AUTO_TEST_CASE(missing_and_corrupt_files_say_so) {
  BOOST_CHECK_THROW(gridpeer::traces::TraceFile("/nonexistent/x.swf"), gridpeer::traces::TraceFileError);
  try {
    gridpeer::traces::resolve_trace_file("no-such-log.swf.gz", std::filesystem::path("/tmp"));
    BOOST_FAIL("expected an error");
  } catch (const gridpeer::traces::TraceFileError& error) {
    BOOST_TEST(std::string(error.what()).find("--trace-dir") != std::string::npos);
  }
  const auto path = std::filesystem::temp_directory_path() / "gridpeer-corrupt.swf.gz";
  {
    std::ofstream out(path, std::ios::binary);
    out << '\x1f' << '\x8b' << "this is not deflate data at all";
  }
  BOOST_CHECK_THROW(gridpeer::traces::load_swf_file(path), std::exception);
  try {
    gridpeer::traces::load_swf_file(path);
  } catch (const gridpeer::traces::TraceFileError& error) {
    BOOST_TEST(std::string(error.what()).find("not a valid gzip file") != std::string::npos);
    BOOST_TEST(std::string(error.what()).find(path.string()) != std::string::npos);
  }
  std::filesystem::remove(path);
}

namespace {

std::string gzip_of(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / "gridpeer-gzip-member.gz";
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, text.data(), static_cast<unsigned>(text.size()));
  gzclose(file);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::filesystem::remove(path);
  return bytes.str();
}

std::string swf_lines(int first, int count) {
  std::string text;
  for (int i = first; i < first + count; ++i) {
    text += std::to_string(i) + " " + std::to_string(i * 10) + " 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n";
  }
  return text;
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

}  // namespace

BOOST_AUTO_TEST_CASE(gzip_logs_are_read_across_blocks_members_and_damage) {
  const auto path = std::filesystem::temp_directory_path() / "gridpeer-blocks.swf.gz";
  // 60,000 lines (~3.5 MB inflated: several of the reader's blocks), written
  // as two gzip members one after the other, as `cat a.gz b.gz` makes.
  const std::string first = gzip_of("; MaxJobs: 60000\n" + swf_lines(1, 30000));
  const std::string second = gzip_of(swf_lines(30001, 30000));
  write_file(path, first + second);
  const SwfTrace trace = gridpeer::traces::load_swf_file(path);
  BOOST_TEST_REQUIRE(trace.records.size() == 60000U);
  for (std::size_t i = 0; i < trace.records.size(); ++i) {
    BOOST_TEST_REQUIRE(trace.records[i].job_number == static_cast<std::int64_t>(i + 1));
    BOOST_TEST_REQUIRE(trace.records[i].submit_time == static_cast<std::int64_t>((i + 1) * 10));
  }
  // Cut short: an error naming the file and saying it is truncated.
  write_file(path, first.substr(0, first.size() / 2));
  try {
    gridpeer::traces::load_swf_file(path);
    BOOST_FAIL("a truncated log must not load");
  } catch (const gridpeer::traces::TraceFileError& error) {
    BOOST_TEST(std::string(error.what()).find("truncated") != std::string::npos, error.what());
    BOOST_TEST(std::string(error.what()).find(path.string()) != std::string::npos);
  }
  // Damaged in the middle (the gzip checksum or the deflate data fails).
  std::string damaged = first;
  for (std::size_t i = damaged.size() / 2; i < damaged.size() / 2 + 64; ++i)
    damaged[i] = static_cast<char>(~damaged[i]);
  write_file(path, damaged);
  BOOST_CHECK_THROW(gridpeer::traces::load_swf_file(path), gridpeer::traces::TraceFileError);
  // A reader that stops early (the first record only) lets the helper go.
  write_file(path, first);
  {
    gridpeer::traces::TraceFile file(path);
    SwfReader reader([&file](char* into, std::size_t n) { return file.read(into, n); }, path.string());
    BOOST_TEST(reader.next().has_value());
  }
  std::filesystem::remove(path);
}

BOOST_AUTO_TEST_CASE(gzip_members_of_very_different_sizes_are_read_whole_and_in_order) {
  // A gzip file's last four bytes give only its last member's size: here one
  // line's, far short of the first member's 1.7 MB, which must still come whole.
  const auto path = std::filesystem::temp_directory_path() / "gridpeer-members.swf.gz";
  write_file(path, gzip_of("; MaxJobs: 30001\n" + swf_lines(1, 30000)) + gzip_of(swf_lines(30001, 1)));
  const SwfTrace trace = gridpeer::traces::load_swf_file(path);
  BOOST_TEST_REQUIRE(trace.records.size() == 30001U);
  BOOST_TEST(trace.records.front().job_number == 1);
  BOOST_TEST(trace.records.back().job_number == 30001);
  BOOST_TEST(trace.records.back().submit_time == 300010);
  std::filesystem::remove(path);
}

BOOST_AUTO_TEST_CASE(gzip_damage_after_a_whole_member_keeps_the_member_and_names_the_byte) {
  const auto path = std::filesystem::temp_directory_path() / "gridpeer-after-member.swf.gz";
  const std::string first = gzip_of(swf_lines(1, 20000));
  write_file(path, first + "not a gzip member");
  gridpeer::traces::TraceFile file(path);
  SwfReader reader([&file](char* into, std::size_t n) { return file.read(into, n); }, path.string());
  std::size_t read = 0;
  try {
    while (const auto record = reader.next()) {
      BOOST_TEST_REQUIRE(record->job_number == static_cast<std::int64_t>(read + 1));
      ++read;
    }
    BOOST_FAIL("bytes after the last member that are no gzip member must not pass");
  } catch (const gridpeer::traces::TraceFileError& error) {
    const std::string what = error.what();
    BOOST_TEST(what.find("not a valid gzip file") != std::string::npos, what);
    // The damaged member is named by where it begins: just after the whole one.
    BOOST_TEST(what.find("not a gzip header in the member that begins at compressed byte " +
                         std::to_string(first.size()) + " ") != std::string::npos,
               what);
  }
  BOOST_TEST(read == 20000U);  // every line of the whole member was handed over first
  std::filesystem::remove(path);
}

BOOST_AUTO_TEST_SUITE_END()
