#include "peer/journal/journal_codec.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "peer/io/json/integer_field.hpp"
#include "protocol/bounds.hpp"

namespace gridpeer::daemon {

namespace {

using nlohmann::json;

std::int64_t us(TimePoint t) {
  return t.time_since_epoch().count();
}

json job_json(const Job& job) {
  return {{"id", job.id},
          {"origin", job.origin},
          {"submit_us", us(job.submit)},
          {"cpus", job.cpus},
          {"run_us", job.run_time.count()},
          {"requested_us", job.requested_time.count()},
          {"input_bytes", job.input_bytes},
          {"output_bytes", job.output_bytes},
          {"bag", job.bag}};
}

template <class T>
T field(const json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) throw std::runtime_error(std::string("no field '") + name + "'");
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!io::fits_integer<T>(*it)) {
      throw std::runtime_error(std::string("field '") + name + "' is not an integer within its range");
    }
  }
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(std::string("field '") + name + "' is not of its type");
  }
}

TimePoint time_field(const json& object, const char* name) {
  return TimePoint{Duration{field<std::int64_t>(object, name)}};
}

Job job_of(const json& object) {
  Job job;
  job.id = field<JobId>(object, "id");
  job.origin = field<ServerIndex>(object, "origin");
  job.submit = time_field(object, "submit_us");
  job.cpus = protocol::cpus_of(field<std::int64_t>(object, "cpus"), "job.cpus");
  job.run_time = Duration{field<std::int64_t>(object, "run_us")};
  job.requested_time = Duration{field<std::int64_t>(object, "requested_us")};
  job.input_bytes = field<std::uint64_t>(object, "input_bytes");
  job.output_bytes = field<std::uint64_t>(object, "output_bytes");
  job.bag = field<std::uint32_t>(object, "bag");
  protocol::check_job(job, "job");
  return job;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

/// A server index the grid has.
void check_server(ServerIndex server, const JournalOwner& owner, const char* field) {
  require(server < owner.servers, std::string(field) + " " + std::to_string(server) + " is not a server of the grid (" +
                                      std::to_string(owner.servers) + " servers)");
}

void check_origin(JobId id, ServerIndex origin, const JournalOwner& owner, const char* what) {
  check_server(origin, owner, what);
  require(origin_in_id(id) == origin, std::string(what) + " " + std::to_string(origin) + " is not the one its id " +
                                          std::to_string(id) + " names (" + std::to_string(origin_in_id(id)) + ")");
}

json parse(const std::string& text) {
  json object = json::parse(text, nullptr, false);
  if (!object.is_object()) throw std::runtime_error("not a JSON object");
  return object;
}

constexpr const char* kPhases[] = {"accepted", "committed", "hosting", "ran"};
constexpr const char* kOutcomes[] = {"completed", "rejected", "lost"};

template <class Enum, std::size_t N>
Enum enum_of(const std::string& name, const char* const (&names)[N], const char* what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  throw std::runtime_error(std::string("unknown ") + what + " '" + name + "'");
}

}  // namespace

std::string encode_entry(const DurableJob& entry) {
  json object = {{"phase", kPhases[static_cast<int>(entry.phase)]},
                 {"job", job_json(entry.job)},
                 {"recoveries", entry.recoveries}};
  switch (entry.phase) {
    case DurableJob::Phase::accepted:
      break;
    case DurableJob::Phase::committed:
      object["executor"] = entry.peer;
      object["attempt"] = entry.attempt;
      break;
    case DurableJob::Phase::hosting:
      object["origin_mhz"] = entry.origin_mhz;
      break;
    case DurableJob::Phase::ran:
      object["start_us"] = us(entry.start);
      object["finish_us"] = us(entry.finish);
      break;
  }
  return object.dump();
}

DurableJob decode_entry(const std::string& text, DurableRole role, const JournalOwner& owner) {
  const json object = parse(text);
  DurableJob entry;
  entry.phase = enum_of<DurableJob::Phase>(field<std::string>(object, "phase"), kPhases, "phase");
  entry.job = job_of(field<json>(object, "job"));
  entry.recoveries = field<std::uint32_t>(object, "recoveries");
  check_origin(entry.job.id, entry.job.origin, owner, "job.origin");
  const bool own = role == DurableRole::own;
  require(own == (entry.job.origin == owner.self),
          own ? "an own job whose origin is another server" : "a hosted job whose origin is this peer");
  const bool own_phase = entry.phase == DurableJob::Phase::accepted || entry.phase == DurableJob::Phase::committed;
  require(own == own_phase, std::string("phase ") + kPhases[static_cast<int>(entry.phase)] + " in a" +
                                (own ? "n own" : " hosted") + " job's row");
  switch (entry.phase) {
    case DurableJob::Phase::accepted:
      break;
    case DurableJob::Phase::committed:
      entry.peer = field<ServerIndex>(object, "executor");
      entry.attempt = field<std::uint32_t>(object, "attempt");
      check_server(entry.peer, owner, "executor");
      require(entry.peer != owner.self, "a job committed to this peer itself");
      break;
    case DurableJob::Phase::hosting:
      entry.origin_mhz = protocol::mhz_of(field<std::int64_t>(object, "origin_mhz"), "origin_mhz");
      break;
    case DurableJob::Phase::ran:
      entry.start = protocol::time_of(field<std::int64_t>(object, "start_us"), "start_us");
      entry.finish = protocol::time_of(field<std::int64_t>(object, "finish_us"), "finish_us");
      require(entry.finish >= entry.start, "finish_us before start_us");
      break;
  }
  return entry;
}

std::string encode_result(const protocol::ResultRecord& result) {
  const JobRecord& r = result.record;
  json parts = json::array();
  for (const protocol::ResultPart& part : result.parts) {
    parts.push_back({{"server", part.server}, {"cpus", part.cpus}, {"lowest_share", part.lowest_share}});
  }
  json out{{"id", r.id},
           {"origin", r.origin},
           {"executed_on", r.executed_on},
           {"cpus", r.cpus},
           {"submit_us", us(r.submit)},
           {"start_us", us(r.start)},
           {"finish_us", us(r.finish)},
           {"end_us", us(r.end)},
           {"input_bytes", r.input_bytes},
           {"output_bytes", r.output_bytes},
           {"recoveries", r.recoveries},
           {"outcome", kOutcomes[static_cast<int>(result.outcome)]},
           {"reason", result.reason}};
  if (!parts.empty()) out["parts"] = std::move(parts);  // only split jobs: other lines keep their bytes
  return out.dump();
}

protocol::ResultRecord decode_result(const std::string& text, const JournalOwner& owner) {
  const json object = parse(text);
  protocol::ResultRecord result;
  JobRecord& r = result.record;
  r.id = field<JobId>(object, "id");
  r.origin = field<ServerIndex>(object, "origin");
  r.executed_on = field<ServerIndex>(object, "executed_on");
  r.cpus = protocol::cpus_of(field<std::int64_t>(object, "cpus"), "cpus");
  r.submit = time_field(object, "submit_us");
  r.start = time_field(object, "start_us");
  r.finish = time_field(object, "finish_us");
  r.end = time_field(object, "end_us");
  r.input_bytes = field<std::uint64_t>(object, "input_bytes");
  r.output_bytes = field<std::uint64_t>(object, "output_bytes");
  r.recoveries = field<std::uint32_t>(object, "recoveries");
  result.outcome = enum_of<JobOutcome>(field<std::string>(object, "outcome"), kOutcomes, "outcome");
  result.reason = field<std::string>(object, "reason");
  if (const auto parts = object.find("parts"); parts != object.end()) {
    require(parts->is_array() && parts->size() <= protocol::kMaxResultParts, "parts is not a list of parts");
    int cpus = 0;
    for (const json& part : *parts) {
      protocol::ResultPart p;
      p.server = field<ServerIndex>(part, "server");
      p.cpus = protocol::cpus_of(field<std::int64_t>(part, "cpus"), "parts[].cpus");
      p.lowest_share = field<double>(part, "lowest_share");
      require(p.lowest_share > 0 && p.lowest_share <= 1, "parts[].lowest_share is not within (0, 1]");
      check_server(p.server, owner, "parts[].server");
      cpus += p.cpus;
      result.parts.push_back(p);
    }
    require(cpus == r.cpus, "parts do not add up to the job's CPUs");
  }
  protocol::check_record(r, "result");
  check_origin(r.id, r.origin, owner, "origin");
  require(r.origin == owner.self, "the result of another server's job");
  check_server(r.executed_on, owner, "executed_on");
  return result;
}

std::string encode_member(const protocol::MemberCard& card) {
  return json{{"name", card.name},
              {"address", card.address},
              {"site", card.server.site},
              {"nodes", card.server.nodes},
              {"cpus_per_node", card.server.cpus_per_node},
              {"mhz", card.server.mhz}}
      .dump();
}

protocol::MemberCard decode_member(const std::string& text, ServerIndex index) {
  const json object = parse(text);
  protocol::MemberCard card;
  card.index = index;
  card.name = field<std::string>(object, "name");
  if (card.name.empty() || card.name.size() > protocol::kMaxMemberText)
    throw std::runtime_error("name is empty or too long");
  card.address = field<std::string>(object, "address");
  card.server.name = card.name;
  card.server.site = field<int>(object, "site");
  if (card.server.site < 0 || card.server.site > static_cast<int>(protocol::kMaxPeers)) {
    throw std::runtime_error("site " + std::to_string(card.server.site) + " is out of bounds");
  }
  card.server.nodes = protocol::cpus_of(field<std::int64_t>(object, "nodes"), "nodes");
  card.server.cpus_per_node = protocol::cpus_of(field<std::int64_t>(object, "cpus_per_node"), "cpus_per_node");
  card.server.mhz = protocol::mhz_of(field<std::int64_t>(object, "mhz"), "mhz");
  return card;
}

}  // namespace gridpeer::daemon
