#include "peer/client/manifest.hpp"

#include <fstream>
#include <map>
#include <stdexcept>

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
  out << line.dump() << '\n';
}

std::vector<ManifestEntry> read_manifest(const std::string& path, const topology::Topology& grid) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the manifest (written by gridctl replay --manifest)");
  std::vector<ManifestEntry> entries;
  std::string text;
  for (std::size_t line = 1; std::getline(in, text); ++line) {
    if (text.empty()) continue;
    const std::string where = path + ":" + std::to_string(line) + ": ";
    try {
      const auto json = nlohmann::json::parse(text);
      ManifestEntry entry;
      entry.index = json.at("index").get<std::size_t>();
      const auto origin = grid.find_server(json.at("origin").get<std::string>());
      if (!origin) throw std::invalid_argument("origin is not a server of " + grid.name);
      entry.origin = static_cast<ServerIndex>(*origin);
      const std::string status = json.at("status").get<std::string>();
      if (status == "submitted") {
        entry.status = ManifestEntry::Status::submitted;
        entry.job = json.at("job").get<JobId>();
      } else if (status == "refused") {
        entry.status = ManifestEntry::Status::refused;
      } else if (status == "unreachable") {
        entry.status = ManifestEntry::Status::unreachable;
      } else {
        throw std::invalid_argument("status '" + status + "' is not submitted, refused or unreachable");
      }
      entry.reason = json.value("reason", "");
      entry.origin_boot = json.value("origin_boot", std::uint64_t{0});
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

nlohmann::json to_json(const Accounting& a) {
  return {{"handed", a.handed},
          {"submitted", a.submitted},
          {"not_submitted", a.not_submitted},
          {"completed", a.completed},
          {"lost", a.lost},
          {"rejected", a.rejected},
          {"in_progress", a.in_progress},
          {"origin_unreachable", a.origin_unreachable},
          {"origin_unreachable_jobs", a.unreachable_jobs},
          {"origin_restarted", a.origin_restarted},
          {"origin_restarted_jobs", a.restarted_jobs},
          {"unknown_records", a.unknown_records},
          {"settled", a.settled()}};
}

}  // namespace gridpeer::client
