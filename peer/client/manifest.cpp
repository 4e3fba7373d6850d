#include "peer/client/manifest.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "peer/io/json/integer_field.hpp"

namespace gridpeer::client {

namespace {

const char* status_name(ManifestEntry::Status status) {
  switch (status) {
    case ManifestEntry::Status::submitted:
      return "submitted";
    case ManifestEntry::Status::refused:
      return "refused";
    case ManifestEntry::Status::unreachable:
      return "unreachable";
    case ManifestEntry::Status::unacknowledged:
      return "unacknowledged";
  }
  return "?";
}

}  // namespace

void write_manifest_line(std::ostream& out, const ManifestEntry& entry, const topology::Topology& grid) {
  nlohmann::json line = {{"index", entry.index},
                         {"origin", grid.servers.at(entry.origin).spec.name},
                         {"status", status_name(entry.status)}};
  line["job"] = entry.job ? nlohmann::json(*entry.job) : nlohmann::json(nullptr);
  if (!entry.reason.empty()) line["reason"] = entry.reason;
  if (entry.origin_boot != 0) line["origin_boot"] = entry.origin_boot;
  line["workload"] = std::string(entry.source.workload());
  line["job_number"] = entry.source.job_number;
  line["submit_s"] = entry.submit_s;
  line["requested_s"] = entry.requested_s;
  line["cpus"] = entry.cpus;
  // A line at a time, so a replay that is killed leaves what it handed.
  out << line.dump() << std::endl;
}

std::vector<ManifestEntry> read_manifest(const std::string& path, const topology::Topology& grid,
                                         std::ostream* warnings) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the manifest (written by gridctl replay --manifest)");
  std::vector<ManifestEntry> entries;
  std::string text;
  for (std::size_t line = 1; std::getline(in, text); ++line) {
    if (text.empty()) continue;
    if (in.eof()) {
      // No newline after it: written in part when the replay was killed.
      // Every whole line before it was flushed and stands.
      if (warnings != nullptr) {
        *warnings << path << ":" << line << ": the last line is cut short (a replay killed while writing it); "
                  << "left out\n";
      }
      break;
    }
    const std::string where = path + ":" + std::to_string(line) + ": ";
    try {
      const auto json = nlohmann::json::parse(text);
      ManifestEntry entry;
      entry.index = io::integer_field<std::size_t>(json, "index");
      const auto origin = grid.find_server(json.at("origin").get<std::string>());
      if (!origin) throw std::invalid_argument("origin is not a server of " + grid.name);
      entry.origin = static_cast<ServerIndex>(*origin);
      const std::string status = json.at("status").get<std::string>();
      if (status == "submitted") {
        entry.status = ManifestEntry::Status::submitted;
        entry.job = io::integer_field<JobId>(json, "job");
      } else if (status == "refused") {
        entry.status = ManifestEntry::Status::refused;
      } else if (status == "unreachable") {
        entry.status = ManifestEntry::Status::unreachable;
      } else if (status == "unacknowledged") {
        entry.status = ManifestEntry::Status::unacknowledged;
      } else {
        throw std::invalid_argument("status '" + status + "' is not submitted, refused, unreachable or unacknowledged");
      }
      entry.reason = json.value("reason", "");
      entry.origin_boot = io::integer_field_or(json, "origin_boot", std::uint64_t{0});
      entry.source.workload_name = std::make_shared<const std::string>(json.value("workload", ""));
      entry.source.job_number = io::integer_field_or(json, "job_number", std::int64_t{-1});
      entry.submit_s = json.value("submit_s", 0.0);
      entry.requested_s = json.value("requested_s", -1.0);
      entry.cpus = io::integer_field_or(json, "cpus", 0);
      entries.push_back(std::move(entry));
    } catch (const nlohmann::json::exception& error) {
      throw std::invalid_argument(where + error.what());
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(where + error.what());
    }
  }
  return entries;
}

Accounting account(const std::vector<ManifestEntry>& manifest, const std::vector<protocol::ResultRecord>& records,
                   const std::set<ServerIndex>& unreachable_peers, const std::map<ServerIndex, std::uint64_t>& boots) {
  std::map<JobId, const protocol::ResultRecord*> by_id;
  for (const auto& r : records) by_id[r.record.id] = &r;
  Accounting a;
  a.handed = manifest.size();
  std::size_t listed = 0;
  for (const ManifestEntry& entry : manifest) {
    if (entry.status != ManifestEntry::Status::submitted || !entry.job) {
      ++a.not_submitted;
      if (entry.status == ManifestEntry::Status::unacknowledged) ++a.unacknowledged;
      continue;
    }
    ++a.submitted;
    const auto it = by_id.find(*entry.job);
    if (it == by_id.end()) {
      const auto boot = boots.find(entry.origin);
      if (unreachable_peers.count(entry.origin) != 0U) {
        ++a.origin_unreachable;
        a.unreachable_jobs.push_back(*entry.job);
      } else if (entry.origin_boot != 0 && boot != boots.end() && boot->second != entry.origin_boot) {
        ++a.origin_restarted;
        a.restarted_jobs.push_back(*entry.job);
      } else {
        ++a.in_progress;
        a.in_progress_jobs.emplace_back(*entry.job, entry.origin);
      }
      continue;
    }
    ++listed;
    switch (it->second->outcome) {
      case protocol::ResultRecord::Outcome::completed:
        ++a.completed;
        break;
      case protocol::ResultRecord::Outcome::lost:
        ++a.lost;
        break;
      case protocol::ResultRecord::Outcome::rejected:
        ++a.rejected;
        break;
    }
  }
  a.unknown_records = by_id.size() - listed;
  return a;
}

nlohmann::json to_json(const Accounting& a, const topology::Topology& grid) {
  nlohmann::json in_progress = nlohmann::json::array();
  for (const auto& [job, origin] : a.in_progress_jobs) {
    in_progress.push_back({{"job", job}, {"origin", grid.servers.at(origin).spec.name}});
  }
  return {{"handed", a.handed},
          {"submitted", a.submitted},
          {"not_submitted", a.not_submitted},
          {"unacknowledged", a.unacknowledged},
          {"completed", a.completed},
          {"lost", a.lost},
          {"rejected", a.rejected},
          {"in_progress", a.in_progress},
          {"in_progress_jobs", in_progress},
          {"origin_unreachable", a.origin_unreachable},
          {"origin_unreachable_jobs", a.unreachable_jobs},
          {"origin_restarted", a.origin_restarted},
          {"origin_restarted_jobs", a.restarted_jobs},
          {"unknown_records", a.unknown_records},
          {"settled", a.settled()}};
}

std::vector<report::JobRow> job_rows(const std::vector<protocol::ResultRecord>& records,
                                     const std::vector<ManifestEntry>* manifest) {
  std::vector<report::JobRow> rows;
  std::map<JobId, const ManifestEntry*> handed;
  if (manifest != nullptr) {
    for (const ManifestEntry& entry : *manifest) {
      if (entry.job) handed[*entry.job] = &entry;
    }
  }
  const auto seconds = [](double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e6))}; };
  std::optional<Duration> offset;
  for (const auto& r : records) {
    const auto it = handed.find(r.record.id);
    if (it == handed.end()) continue;
    const Duration gap = r.record.submit.time_since_epoch() - seconds(it->second->submit_s);
    if (!offset || gap < *offset) offset = gap;
  }
  const Duration shift = offset.value_or(Duration{0});
  std::set<JobId> recorded;
  for (const auto& r : records) {
    report::JobRow row;
    row.record = r.record;
    row.record.submit -= shift;
    row.record.start -= shift;
    row.record.finish -= shift;
    row.record.end -= shift;
    row.state = r.outcome == JobOutcome::completed ? report::RowState::completed
                : r.outcome == JobOutcome::lost    ? report::RowState::lost
                                                   : report::RowState::rejected;
    row.note = r.reason;
    if (!r.parts.empty()) {
      row.note = "split";
      for (const protocol::ResultPart& part : r.parts) {
        row.parts.push_back({part.server, part.cpus});
        row.note += " " + std::to_string(part.server) + ":" + std::to_string(part.cpus) + "@" +
                    fmt::format("{:.3g}", part.lowest_share);
      }
    }
    if (const auto it = handed.find(r.record.id); it != handed.end()) {
      row.source = it->second->source;
      if (it->second->requested_s >= 0) row.requested_time = seconds(it->second->requested_s);
    }
    recorded.insert(r.record.id);
    rows.push_back(std::move(row));
  }
  if (manifest != nullptr) {
    for (const ManifestEntry& entry : *manifest) {
      if (entry.job && recorded.count(*entry.job) != 0U) continue;
      report::JobRow row;
      row.record.id = entry.job.value_or(0);
      row.record.origin = entry.origin;
      row.record.cpus = entry.cpus;
      row.record.submit = TimePoint{seconds(entry.submit_s)};
      row.state =
          entry.status == ManifestEntry::Status::submitted ? report::RowState::unfinished : report::RowState::rejected;
      row.note = entry.status == ManifestEntry::Status::submitted ? "no record yet" : entry.reason;
      row.source = entry.source;
      if (entry.requested_s >= 0) row.requested_time = seconds(entry.requested_s);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace gridpeer::client
