#include "protocol/codec.hpp"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "protocol/bounds.hpp"
#include "protocol/gridpeer.capnp.h"

namespace gridpeer::protocol {
namespace {

namespace w = ::gridpeer::wire;

// An invalid field value: decoding stops with its path in the message. The
// bounds of single values are bounds.hpp's, shared with a peer's journal.
using Invalid = OutOfBounds;

std::int64_t us(Duration d) {
  return d.count();
}
std::int64_t us(TimePoint t) {
  return t.time_since_epoch().count();
}
void require(bool ok, const std::string& what) {
  if (!ok) throw Invalid(what);
}
/// What an ATT or AWT beyond the wire's bound is sent as: never.
std::int64_t wait_us(Duration d) {
  return d.count() > kMaxWireTimeUs ? kForever.count() : d.count();
}

/// A link rate on the wire: finite, not negative, at most 1 Pb/s.
bool bandwidth_ok(double mbps) {
  return std::isfinite(mbps) && mbps >= 0 && mbps <= 1e9;
}

// ---- encoding -------------------------------------------------------------

void put_job(w::Job::Builder out, const Job& job) {
  out.setId(job.id);
  out.setOrigin(job.origin);
  out.setCpus(job.cpus);
  out.setSubmitUs(us(job.submit));
  out.setRequestedUs(us(job.requested_time));
  out.setRunUs(us(job.run_time));
  out.setInputBytes(job.input_bytes);
  out.setOutputBytes(job.output_bytes);
}

void put_record(w::JobRecord::Builder out, const ResultRecord& result) {
  const JobRecord& r = result.record;
  out.setId(r.id);
  out.setOrigin(r.origin);
  out.setExecutedOn(r.executed_on);
  out.setCpus(r.cpus);
  out.setSubmitUs(us(r.submit));
  out.setStartUs(us(r.start));
  out.setFinishUs(us(r.finish));
  out.setEndUs(us(r.end));
  out.setInputBytes(r.input_bytes);
  out.setOutputBytes(r.output_bytes);
  switch (result.outcome) {
    case ResultRecord::Outcome::completed:
      out.setOutcome(w::JobRecord::Outcome::COMPLETED);
      break;
    case ResultRecord::Outcome::lost:
      out.setOutcome(w::JobRecord::Outcome::LOST);
      break;
    case ResultRecord::Outcome::rejected:
      out.setOutcome(w::JobRecord::Outcome::REJECTED);
      break;
  }
  out.setReason(result.reason);
  out.setRecoveries(r.recoveries);
  if (!result.parts.empty()) {
    auto parts = out.initParts(static_cast<unsigned>(result.parts.size()));
    for (unsigned i = 0; i < result.parts.size(); ++i) {
      parts[i].setServer(result.parts[i].server);
      parts[i].setCpus(result.parts[i].cpus);
      parts[i].setLowestShare(result.parts[i].lowest_share);
    }
  }
}

void put_requirements(w::Requirements::Builder out, const JobRequirements& r) {
  out.setJob(r.job);
  out.setOrigin(r.origin);
  out.setCpus(r.cpus);
  out.setRequestedUs(us(r.requested));
  out.setOriginMhz(r.origin_mhz);
  out.setInputBytes(r.input_bytes);
  out.setOutputBytes(r.output_bytes);
}

// One table both ways: the core's reasons and the schema's codes.
constexpr std::pair<RejectReason, w::JobReject::Code> kRejectCodes[] = {
    {RejectReason::cannot_fit, w::JobReject::Code::CANNOT_FIT},
    {RejectReason::draining, w::JobReject::Code::DRAINING},
    {RejectReason::not_origin, w::JobReject::Code::NOT_ORIGIN},
    {RejectReason::id_in_use, w::JobReject::Code::ID_IN_USE},
    {RejectReason::unknown_offer, w::JobReject::Code::UNKNOWN_OFFER},
    {RejectReason::out_of_range, w::JobReject::Code::OUT_OF_RANGE},
    {RejectReason::reservations, w::JobReject::Code::RESERVATIONS},
};

w::MemberUpdate::State state_code(MemberState state) {
  switch (state) {
    case MemberState::alive:
      return w::MemberUpdate::State::ALIVE;
    case MemberState::suspect:
      return w::MemberUpdate::State::SUSPECT;
    case MemberState::dead:
      return w::MemberUpdate::State::DEAD;
    case MemberState::left:
      return w::MemberUpdate::State::LEFT;
  }
  return w::MemberUpdate::State::ALIVE;
}

/// A card's fields, in a MemberCard or a MemberStatus (the same names).
template <class Builder>
void put_card(Builder out, const MemberCard& card) {
  out.setName(card.name);
  out.setAddress(card.address);
  out.setSite(card.server.site);
  out.setNodes(card.server.nodes);
  out.setCpusPerNode(card.server.cpus_per_node);
  out.setMhz(card.server.mhz);
}

void put_update(w::MemberUpdate::Builder out, const MemberUpdate& update) {
  out.setMember(update.member);
  out.setIncarnation(update.incarnation);
  out.setState(state_code(update.state));
  out.setBy(update.by);
  out.setHasCard(update.card.has_value());
  if (update.card) {
    auto card = out.initCard();
    put_card(card, *update.card);
    card.setIndex(update.card->index);
  }
}

template <class Builder>
void put_updates(Builder out, const std::vector<MemberUpdate>& updates) {
  for (unsigned i = 0; i < updates.size(); ++i) put_update(out[i], updates[i]);
}

w::JobReject::Code code_of(RejectReason reason) {
  for (const auto& [core, wire] : kRejectCodes) {
    if (core == reason) return wire;
  }
  return w::JobReject::Code::UNKNOWN_OFFER;
}

/// A code from a newer peer that we do not know is still a rejection.
RejectReason reason_of(w::JobReject::Code code) {
  for (const auto& [core, wire] : kRejectCodes) {
    if (wire == code) return core;
  }
  return RejectReason::unknown_offer;
}

w::TransferBegin::Kind kind_of(bool output) {
  return output ? w::TransferBegin::Kind::OUTPUT : w::TransferBegin::Kind::INPUT;
}

w::Error::Code wire_code(Error::Code code) {
  switch (code) {
    case Error::Code::malformed:
      return w::Error::Code::MALFORMED;
    case Error::Code::version_mismatch:
      return w::Error::Code::VERSION_MISMATCH;
    case Error::Code::unknown_message:
      return w::Error::Code::UNKNOWN_MESSAGE;
    case Error::Code::frame_too_large:
      return w::Error::Code::FRAME_TOO_LARGE;
    case Error::Code::unknown_peer:
      return w::Error::Code::UNKNOWN_PEER;
    case Error::Code::config_mismatch:
      return w::Error::Code::CONFIG_MISMATCH;
    case Error::Code::not_accepted:
      return w::Error::Code::NOT_ACCEPTED;
  }
  return w::Error::Code::MALFORMED;
}

void put_att_reply(w::AttReply::Builder out, const AttReply& m) {
  out.setQuery(m.query);
  out.setJob(m.job);
  out.setAttUs(wait_us(m.att));
  out.setAwtUs(wait_us(m.awt));
  out.setRu(m.ru);
  out.setFreeCpus(m.free_cpus);
  out.setTotalCpus(m.total_cpus);
  out.setMhz(m.mhz);
  out.setQueueLength(m.queue_length);
}

struct Encoder {
  w::Envelope::Builder env;

  void operator()(const Hello& m) {
    auto out = env.initHello();
    out.setVersion(m.version);
    out.setRole(m.role == Hello::Role::peer ? w::Hello::Role::PEER : w::Hello::Role::CLIENT);
    out.setPeerId(m.peer);
    out.setName(m.name);
    out.setSite(m.site);
    out.setNodes(m.nodes);
    out.setCpusPerNode(m.cpus_per_node);
    out.setMhz(m.mhz);
    out.setTimeScale(m.time_scale);
    out.setEpochUnixUs(m.epoch_unix_us);
    out.setAlgorithm(m.algorithm);
    out.setBootId(m.boot_id);
    out.setJournaled(m.journaled);
    out.setAddress(m.address);
    out.setJoining(m.joining);
    out.setMembership(m.membership);
    out.setIncarnation(m.incarnation);
  }
  void operator()(const AttQuery& m) {
    auto out = env.initAttQuery();
    out.setQuery(m.query);
    put_requirements(out.initRequirements(), m.requirements);
  }
  void operator()(const PlaceRequest& m) {
    put_requirements(env.initPlaceRequest().initRequirements(), m.requirements);
  }
  void operator()(const Placement& m) {
    auto out = env.initPlacement();
    out.setJob(m.job);
    out.setServer(m.server);
  }
  void operator()(const AttReply& m) {
    if (m.link_capacity_mbps > 0) {
      auto out = env.initAttReplyWithPart();
      put_att_reply(out.initReply(), m);
      out.setPartCpus(m.part_cpus);
      out.setLinkCapacityMbps(m.link_capacity_mbps);
      out.setLinkDemandMbps(m.link_demand_mbps);
    } else {
      put_att_reply(env.initAttReply(), m);
    }
  }
  void operator()(const PartPrepare& m) {
    auto out = env.initPartPrepare();
    put_job(out.initJob(), m.job);
    out.setAttempt(m.attempt);
    out.setCpus(m.cpus);
    out.setDemandMbps(m.demand_mbps);
    out.setStartUs(us(m.start));
    out.setLeaseEndUs(us(m.lease_end));
    out.setOriginMhz(m.origin_mhz);
    out.setLinkLimitMbps(m.link_limit_mbps);
  }
  void operator()(const PartReport& m) {
    auto out = env.initPartReport();
    out.setJob(m.job);
    out.setAttempt(m.attempt);
    out.setState(static_cast<w::PartReport::State>(m.state));
    out.setShare(m.share);
    out.setEndUs(us(m.end));
  }
  void operator()(const PartDecision& m) {
    auto out = env.initPartDecision();
    out.setJob(m.job);
    out.setAttempt(m.attempt);
    out.setOrder(static_cast<w::PartDecision::Order>(m.order));
    out.setEndUs(us(m.end));
    out.setLeaseEndUs(us(m.lease_end));
  }
  void operator()(const Volunteer& m) { env.initVolunteer().setRu(m.ru); }
  void operator()(const JobOffer& m) {
    auto out = env.initJobOffer();
    put_job(out.initJob(), m.job);
    out.setOriginMhz(m.origin_mhz);
    out.setAttempt(m.attempt);
  }
  void operator()(const JobAccept& m) {
    auto out = env.initJobAccept();
    out.setJob(m.job);
    out.setAttempt(m.attempt);
    out.setHosting(m.hosting);
  }
  void operator()(const JobReject& m) {
    auto out = env.initJobReject();
    out.setJob(m.job);
    out.setAttempt(m.attempt);
    out.setCode(code_of(m.reason));
    out.setReason(describe(m.reason));
  }
  void operator()(const JobCommit& m) {
    auto out = env.initJobCommit();
    out.setJob(m.job);
    out.setAttempt(m.attempt);
    out.setAgain(m.again);
  }
  void operator()(const TransferBegin& m) {
    auto out = env.initTransferBegin();
    out.setJob(m.job);
    out.setKind(kind_of(m.output));
    out.setBytes(m.bytes);
    out.setPayloadBytes(m.payload_bytes);
    out.setStartUs(us(m.start));
    out.setFinishUs(us(m.finish));
    out.setAttempt(m.attempt);
  }
  void operator()(const DataChunk& m) {
    auto out = env.initDataChunk();
    out.setJob(m.job);
    out.setKind(kind_of(m.output));
    out.setPayload(kj::arrayPtr(m.payload.data(), m.payload.size()));
  }
  void operator()(const Completion& m) {
    auto out = env.initCompletion();
    out.setJob(m.job);
    out.setStartUs(us(m.start));
    out.setFinishUs(us(m.finish));
  }
  void operator()(const Heartbeat& m) { env.initHeartbeat().setSentUs(us(m.sent)); }
  void operator()(const Error& m) {
    auto out = env.initError();
    out.setCode(wire_code(m.code));
    out.setDetail(m.detail);
  }
  void operator()(const Submit& m) { put_job(env.initSubmit().initJob(), m.job); }
  void operator()(const SubmitBag& m) {
    auto out = env.initSubmitBag();
    out.setBag(m.bag);  // a submission's, not a job's: peers never send it on
    auto jobs = out.initJobs(static_cast<unsigned>(m.jobs.size()));
    for (unsigned i = 0; i < m.jobs.size(); ++i) put_job(jobs[i], m.jobs[i]);
  }
  void operator()(const SubmitAck& m) {
    auto out = env.initSubmitAck();
    out.setJob(m.job);
    out.setAccepted(m.accepted);
    out.setReason(m.reason);
  }
  void operator()(const StatusRequest& /*m*/) { env.initStatusRequest(); }
  void operator()(const PeerStatus& m) {
    auto out = env.initStatus();
    out.setPeerId(m.peer);
    out.setName(m.name);
    out.setNowUs(us(m.now));
    out.setGridQueue(m.grid_queue);
    out.setLocalQueue(m.local_queue);
    out.setRunning(m.running);
    out.setAwaitingInput(m.awaiting_input);
    out.setRu(m.ru);
    auto connected = out.initConnectedPeers(static_cast<unsigned>(m.connected.size()));
    for (unsigned i = 0; i < m.connected.size(); ++i) connected.set(i, m.connected[i]);
    out.setCompleted(m.completed);
    out.setSubmitted(m.submitted);
    out.setJobsSent(m.jobs_sent);
    out.setJobsReceived(m.jobs_received);
    out.setDraining(m.draining);
    out.setLost(m.lost);
    out.setRecovered(m.recovered);
    out.setIncarnation(m.incarnation);
    auto members = out.initMembers(static_cast<unsigned>(m.members.size()));
    for (unsigned i = 0; i < m.members.size(); ++i) {
      const MemberStatus& member = m.members[i];
      auto row = members[i];
      put_card(row, member.card);
      row.setIndex(member.index);
      row.setState(state_code(member.state));
      row.setIncarnation(member.incarnation);
      row.setSinceUs(us(member.since));
    }
  }
  void operator()(const ResultsRequest& m) {
    auto out = env.initResultsRequest();
    out.setFrom(m.from);
    out.setMax(m.max);
  }
  void operator()(const ResultsReply& m) {
    auto out = env.initResults();
    auto records = out.initRecords(static_cast<unsigned>(m.records.size()));
    for (unsigned i = 0; i < m.records.size(); ++i) put_record(records[i], m.records[i]);
    out.setTotal(m.total);
  }
  void operator()(const Drain& /*m*/) { env.initDrain(); }
  void operator()(const Shutdown& m) { env.initShutdown().setLeave(m.leave); }
  void operator()(const Undrain& /*m*/) { env.initUndrain(); }
  void operator()(const Ack& /*m*/) { env.initAck(); }
  void operator()(const MemberPing& m) {
    auto out = env.initMemberPing();
    out.setSeq(m.seq);
    out.setTarget(m.target);
    put_updates(out.initUpdates(static_cast<unsigned>(m.updates.size())), m.updates);
  }
  void operator()(const MemberAck& m) {
    auto out = env.initMemberAck();
    out.setSeq(m.seq);
    put_updates(out.initUpdates(static_cast<unsigned>(m.updates.size())), m.updates);
  }
  void operator()(const MemberPingReq& m) {
    auto out = env.initMemberPingReq();
    out.setSeq(m.seq);
    out.setTarget(m.target);
    put_updates(out.initUpdates(static_cast<unsigned>(m.updates.size())), m.updates);
  }
  void operator()(const MemberSync& m) {
    auto out = env.initMemberSync();
    put_updates(out.initMembers(static_cast<unsigned>(m.members.size())), m.members);
    out.setWantsAnswer(m.wants_answer);
  }
};

// ---- decoding -------------------------------------------------------------

Job get_job(w::Job::Reader in, const char* where) {
  Job job;
  job.id = in.getId();
  job.origin = in.getOrigin();
  job.cpus = in.getCpus();
  job.submit = TimePoint{Duration{in.getSubmitUs()}};
  job.requested_time = Duration{in.getRequestedUs()};
  job.run_time = Duration{in.getRunUs()};
  job.input_bytes = in.getInputBytes();
  job.output_bytes = in.getOutputBytes();
  check_job(job, where);
  return job;
}

JobRequirements get_requirements(w::Requirements::Reader in, const char* where) {
  const std::string at = std::string(where) + ".requirements";
  return {in.getJob(),
          in.getOrigin(),
          cpus_of(in.getCpus(), (at + ".cpus").c_str()),
          duration_of(in.getRequestedUs(), (at + ".requestedUs").c_str()),
          mhz_of(in.getOriginMhz(), (at + ".originMhz").c_str()),
          bytes_of(in.getInputBytes(), (at + ".inputBytes").c_str()),
          bytes_of(in.getOutputBytes(), (at + ".outputBytes").c_str())};
}

bool get_output(w::TransferBegin::Kind kind) {
  switch (kind) {
    case w::TransferBegin::Kind::INPUT:
      return false;
    case w::TransferBegin::Kind::OUTPUT:
      return true;
  }
  throw Invalid("a reject reason without a wire code");
}

Error::Code plain_code(w::Error::Code code) {
  switch (code) {
    case w::Error::Code::MALFORMED:
      return Error::Code::malformed;
    case w::Error::Code::VERSION_MISMATCH:
      return Error::Code::version_mismatch;
    case w::Error::Code::UNKNOWN_MESSAGE:
      return Error::Code::unknown_message;
    case w::Error::Code::FRAME_TOO_LARGE:
      return Error::Code::frame_too_large;
    case w::Error::Code::UNKNOWN_PEER:
      return Error::Code::unknown_peer;
    case w::Error::Code::CONFIG_MISMATCH:
      return Error::Code::config_mismatch;
    case w::Error::Code::NOT_ACCEPTED:
      return Error::Code::not_accepted;
  }
  return Error::Code::malformed;  // a newer peer's code: still an error
}

ResultRecord get_record(w::JobRecord::Reader in) {
  ResultRecord result;
  JobRecord& r = result.record;
  r.id = in.getId();
  r.origin = in.getOrigin();
  r.executed_on = in.getExecutedOn();
  r.cpus = in.getCpus();
  r.submit = TimePoint{Duration{in.getSubmitUs()}};
  r.start = TimePoint{Duration{in.getStartUs()}};
  r.finish = TimePoint{Duration{in.getFinishUs()}};
  r.end = TimePoint{Duration{in.getEndUs()}};
  r.input_bytes = in.getInputBytes();
  r.output_bytes = in.getOutputBytes();
  r.recoveries = in.getRecoveries();
  check_record(r, "results.records[]");
  switch (in.getOutcome()) {
    case w::JobRecord::Outcome::COMPLETED:
      result.outcome = ResultRecord::Outcome::completed;
      break;
    case w::JobRecord::Outcome::LOST:
      result.outcome = ResultRecord::Outcome::lost;
      break;
    case w::JobRecord::Outcome::REJECTED:
      result.outcome = ResultRecord::Outcome::rejected;
      break;
    default:
      throw Invalid("results.records[].outcome is unknown");
  }
  result.reason = in.getReason();
  const auto parts = in.getParts();
  require(parts.size() <= kMaxResultParts, "results.records[].parts lists more than 1024 parts");
  int cpus = 0;
  for (const auto part : parts) {
    ResultPart p{part.getServer(), part.getCpus(), part.getLowestShare()};
    require(p.server < kMaxPeers && p.cpus >= 1 && p.cpus <= kMaxWireCpus && p.lowest_share > 0 && p.lowest_share <= 1,
            "results.records[].parts[] needs a server below 100000, 1..1048576 CPUs and a share within (0, 1]");
    cpus += p.cpus;
    result.parts.push_back(p);
  }
  require(result.parts.empty() || cpus == r.cpus, "results.records[].parts must add up to the job's CPUs");
  return result;
}

/// A member's name (non-empty) or address, at most kMaxMemberText bytes.
std::string member_text(capnp::Text::Reader text, const std::string& field, bool may_be_empty) {
  require(text.size() <= kMaxMemberText, field + " is longer than 255 bytes");
  require(may_be_empty || text.size() > 0, field + " is empty");
  std::string out(text.begin(), text.size());
  // A NUL would cut the name short wherever it is read as a C string.
  require(out.find('\0') == std::string::npos, field + " holds a NUL byte");
  return out;
}

MemberState state_of(w::MemberUpdate::State code, const std::string& where) {
  switch (code) {
    case w::MemberUpdate::State::ALIVE:
      return MemberState::alive;
    case w::MemberUpdate::State::SUSPECT:
      return MemberState::suspect;
    case w::MemberUpdate::State::DEAD:
      return MemberState::dead;
    case w::MemberUpdate::State::LEFT:
      return MemberState::left;
    default:
      throw Invalid(where + " is unknown");
  }
}

/// A card's fields from a MemberCard or a MemberStatus, checked.
template <class Reader>
MemberCard get_card(Reader card, const std::string& where) {
  MemberCard out;
  out.name = member_text(card.getName(), where + ".name", false);
  out.address = member_text(card.getAddress(), where + ".address", true);
  require(card.getSite() >= 0 && card.getSite() <= static_cast<std::int32_t>(kMaxPeers),
          where + ".site must be within 0..100000");
  out.server.name = out.name;
  out.server.site = card.getSite();
  out.server.nodes = cpus_of(card.getNodes(), where + ".nodes");
  out.server.cpus_per_node = cpus_of(card.getCpusPerNode(), where + ".cpusPerNode");
  out.server.mhz = mhz_of(card.getMhz(), where + ".mhz");
  return out;
}

/// A member's server index: below kMaxPeers, or unset.
std::uint32_t member_index(std::uint32_t index, const std::string& where) {
  require(index == kNoMemberIndex || index < kMaxPeers, where + " must be below 100000 (or unset)");
  return index;
}

MemberUpdate get_update(w::MemberUpdate::Reader in, const std::string& where) {
  MemberUpdate update;
  update.member = member_text(in.getMember(), where + ".member", false);
  update.incarnation = in.getIncarnation();
  update.state = state_of(in.getState(), where + ".state");
  update.by = member_text(in.getBy(), where + ".by", true);
  if (in.getHasCard()) {
    update.card = get_card(in.getCard(), where + ".card");
    update.card->index = member_index(in.getCard().getIndex(), where + ".card.index");
  }
  return update;
}

template <class Reader>
std::vector<MemberUpdate> get_updates(Reader in, std::size_t most, const std::string& where) {
  require(in.size() <= most, where + " lists more than " + std::to_string(most) + " updates");
  std::vector<MemberUpdate> updates;
  updates.reserve(in.size());
  for (const auto update : in) updates.push_back(get_update(update, where + "[]"));
  return updates;
}

AttReply get_att_reply(w::AttReply::Reader in) {
  AttReply m{in.getQuery(),
             in.getJob(),
             wait_of(in.getAttUs(), "attReply.attUs"),
             wait_of(in.getAwtUs(), "attReply.awtUs"),
             utilization_of(in.getRu(), "attReply.ru"),
             in.getFreeCpus(),
             in.getTotalCpus(),
             in.getMhz(),
             in.getQueueLength()};
  require(m.free_cpus >= 0 && m.free_cpus <= kMaxWireCpus && m.total_cpus >= 0 && m.total_cpus <= kMaxWireCpus &&
              m.mhz >= 0 && m.mhz <= kMaxWireMhz,
          "attReply.freeCpus, totalCpus and mhz must be within 0..1048576 and 0..10000");
  return m;
}

WireMessage decode_envelope(w::Envelope::Reader env) {
  switch (env.which()) {
    case w::Envelope::HELLO: {
      const auto in = env.getHello();
      Hello m;
      m.version = in.getVersion();
      switch (in.getRole()) {
        case w::Hello::Role::PEER:
          m.role = Hello::Role::peer;
          break;
        case w::Hello::Role::CLIENT:
          m.role = Hello::Role::client;
          break;
        default:
          throw Invalid("hello.role is unknown");
      }
      m.peer = in.getPeerId();
      m.name = in.getName();
      m.site = in.getSite();
      m.nodes = in.getNodes();
      m.cpus_per_node = in.getCpusPerNode();
      m.mhz = in.getMhz();
      m.time_scale = in.getTimeScale();
      m.epoch_unix_us = in.getEpochUnixUs();
      // A peer's epoch and scale set its partners' clocks: a real date and a
      // scale a clock can multiply by. A client's are not read.
      if (m.role == Hello::Role::peer) {
        require(m.time_scale > 0 && m.time_scale <= kMaxWireTimeScale,
                "hello.timeScale must be above 0 and at most 1e6");
        require(
            m.epoch_unix_us >= kMinWireEpochUs && m.epoch_unix_us <= kMaxWireEpochUs,
            "hello.epochUnixUs of a peer must be a time between 2000 and 2100, not " + std::to_string(m.epoch_unix_us));
      }
      require(m.nodes >= 0 && m.nodes <= kMaxWireCpus && m.cpus_per_node >= 0 && m.cpus_per_node <= kMaxWireCpus &&
                  m.mhz >= 0 && m.mhz <= kMaxWireMhz,
              "hello.nodes, cpusPerNode and mhz must be within 0..1048576, 0..1048576 and 0..10000");
      m.algorithm = in.getAlgorithm();
      m.boot_id = in.getBootId();
      m.journaled = in.getJournaled();
      m.address = member_text(in.getAddress(), "hello.address", true);
      m.joining = in.getJoining();
      m.membership = in.getMembership();
      m.incarnation = in.getIncarnation();
      require(m.peer < kMaxPeers || (m.joining && m.peer == kNoMemberIndex),
              "hello.peerId must be below 100000 (unset only when joining)");
      return m;
    }
    case w::Envelope::ATT_QUERY: {
      const auto in = env.getAttQuery();
      return AttQuery{in.getQuery(), get_requirements(in.getRequirements(), "attQuery")};
    }
    case w::Envelope::PLACE_REQUEST:
      return PlaceRequest{get_requirements(env.getPlaceRequest().getRequirements(), "placeRequest")};
    case w::Envelope::PLACEMENT:
      return Placement{env.getPlacement().getJob(), env.getPlacement().getServer()};
    case w::Envelope::ATT_REPLY:
      return get_att_reply(env.getAttReply());
    case w::Envelope::ATT_REPLY_WITH_PART: {
      const auto in = env.getAttReplyWithPart();
      AttReply m = get_att_reply(in.getReply());
      m.part_cpus = in.getPartCpus();
      m.link_capacity_mbps = in.getLinkCapacityMbps();
      m.link_demand_mbps = in.getLinkDemandMbps();
      require(m.part_cpus >= 0 && m.part_cpus <= kMaxWireCpus, "attReplyWithPart.partCpus must be within 0..1048576");
      require(bandwidth_ok(m.link_capacity_mbps) && m.link_capacity_mbps > 0 && bandwidth_ok(m.link_demand_mbps),
              "attReplyWithPart.linkCapacityMbps must be above 0 and linkDemandMbps 0 or more, both finite and at "
              "most 1e9 Mb/s");
      return m;
    }
    case w::Envelope::PART_PREPARE: {
      const auto in = env.getPartPrepare();
      PartPrepare m{get_job(in.getJob(), "partPrepare.job"),
                    in.getAttempt(),
                    mhz_of(in.getOriginMhz(), "partPrepare.originMhz"),
                    in.getCpus(),
                    in.getDemandMbps(),
                    time_of(in.getStartUs(), "partPrepare.startUs"),
                    time_of(in.getLeaseEndUs(), "partPrepare.leaseEndUs"),
                    in.getLinkLimitMbps()};
      require(m.cpus >= 1 && m.cpus <= m.job.cpus, "partPrepare.cpus must be within 1..the job's CPUs");
      require(bandwidth_ok(m.demand_mbps), "partPrepare.demandMbps must be finite, 0 or more and at most 1e9 Mb/s");
      require(m.lease_end <= m.start, "partPrepare.leaseEndUs must not be after startUs");
      require(bandwidth_ok(m.link_limit_mbps),
              "partPrepare.linkLimitMbps must be finite, 0 or more and at most 1e9 Mb/s");
      return m;
    }
    case w::Envelope::PART_REPORT: {
      const auto in = env.getPartReport();
      const auto state = static_cast<unsigned>(in.getState());
      require(state <= static_cast<unsigned>(PartState::unknown), "partReport.state is not a known state");
      PartReport m{in.getJob(), in.getAttempt(), static_cast<PartState>(state), in.getShare(),
                   time_of(in.getEndUs(), "partReport.endUs")};
      require(m.share > 0 && m.share <= 1, "partReport.share must be within (0, 1]");
      return m;
    }
    case w::Envelope::PART_DECISION: {
      const auto in = env.getPartDecision();
      const auto order = static_cast<unsigned>(in.getOrder());
      require(order <= static_cast<unsigned>(PartOrder::renew), "partDecision.order is not a known order");
      return PartDecision{in.getJob(), in.getAttempt(), static_cast<PartOrder>(order),
                          time_of(in.getEndUs(), "partDecision.endUs"),
                          time_of(in.getLeaseEndUs(), "partDecision.leaseEndUs")};
    }
    case w::Envelope::VOLUNTEER:
      return Volunteer{utilization_of(env.getVolunteer().getRu(), "volunteer.ru")};
    case w::Envelope::JOB_OFFER: {
      const auto in = env.getJobOffer();
      return JobOffer{get_job(in.getJob(), "jobOffer.job"), mhz_of(in.getOriginMhz(), "jobOffer.originMhz"),
                      in.getAttempt()};
    }
    case w::Envelope::JOB_ACCEPT: {
      const auto in = env.getJobAccept();
      return JobAccept{in.getJob(), in.getAttempt(), in.getHosting()};
    }
    case w::Envelope::JOB_REJECT: {
      const auto in = env.getJobReject();
      return JobReject{in.getJob(), in.getAttempt(), reason_of(in.getCode())};
    }
    case w::Envelope::JOB_COMMIT: {
      const auto in = env.getJobCommit();
      return JobCommit{in.getJob(), in.getAttempt(), in.getAgain()};
    }
    case w::Envelope::TRANSFER_BEGIN: {
      const auto in = env.getTransferBegin();
      TransferBegin m;
      m.job = in.getJob();
      m.output = get_output(in.getKind());
      m.bytes = bytes_of(in.getBytes(), "transferBegin.bytes");
      m.payload_bytes = bytes_of(in.getPayloadBytes(), "transferBegin.payloadBytes");
      m.start = time_of(in.getStartUs(), "transferBegin.startUs");
      m.finish = time_of(in.getFinishUs(), "transferBegin.finishUs");
      m.attempt = in.getAttempt();
      return m;
    }
    case w::Envelope::DATA_CHUNK: {
      const auto in = env.getDataChunk();
      const auto payload = in.getPayload();
      return DataChunk{in.getJob(), get_output(in.getKind()), {payload.begin(), payload.end()}};
    }
    case w::Envelope::COMPLETION: {
      const auto in = env.getCompletion();
      return Completion{in.getJob(), time_of(in.getStartUs(), "completion.startUs"),
                        time_of(in.getFinishUs(), "completion.finishUs")};
    }
    case w::Envelope::HEARTBEAT:
      return Heartbeat{time_of(env.getHeartbeat().getSentUs(), "heartbeat.sentUs")};
    case w::Envelope::ERROR:
      return Error{plain_code(env.getError().getCode()), env.getError().getDetail()};
    case w::Envelope::SUBMIT:
      return Submit{get_job(env.getSubmit().getJob(), "submit.job")};
    case w::Envelope::SUBMIT_BAG: {
      const auto in = env.getSubmitBag();
      require(in.getBag() > 0, "submitBag.bag must be above 0");
      require(in.getJobs().size() <= kMaxBagJobs, "submitBag.jobs lists more than 100000 jobs");
      SubmitBag m;
      m.bag = in.getBag();
      for (const auto job : in.getJobs()) {
        m.jobs.push_back(get_job(job, "submitBag.jobs[]"));
        require(m.jobs.back().cpus == 1, "submitBag.jobs[].cpus must be 1: a bag holds 1-CPU jobs");
        m.jobs.back().bag = in.getBag();
      }
      return m;
    }
    case w::Envelope::SUBMIT_ACK: {
      const auto in = env.getSubmitAck();
      return SubmitAck{in.getJob(), in.getAccepted(), in.getReason()};
    }
    case w::Envelope::STATUS_REQUEST:
      return StatusRequest{};
    case w::Envelope::STATUS: {
      const auto in = env.getStatus();
      PeerStatus m;
      m.peer = in.getPeerId();
      m.name = in.getName();
      m.now = time_of(in.getNowUs(), "status.nowUs");
      m.grid_queue = in.getGridQueue();
      m.local_queue = in.getLocalQueue();
      m.running = in.getRunning();
      m.awaiting_input = in.getAwaitingInput();
      m.ru = utilization_of(in.getRu(), "status.ru");
      require(in.getConnectedPeers().size() <= kMaxPeers, "status.connectedPeers lists more than 100000 peers");
      for (const auto peer : in.getConnectedPeers()) m.connected.push_back(peer);
      m.completed = in.getCompleted();
      m.submitted = in.getSubmitted();
      m.jobs_sent = in.getJobsSent();
      m.jobs_received = in.getJobsReceived();
      m.draining = in.getDraining();
      m.lost = in.getLost();
      m.recovered = in.getRecovered();
      m.incarnation = in.getIncarnation();
      require(in.getMembers().size() <= kMaxPeers, "status.members lists more than 100000 members");
      for (const auto row : in.getMembers()) {
        MemberStatus member;
        member.card = get_card(row, "status.members[]");
        member.index = member_index(row.getIndex(), "status.members[].index");
        member.card.index = member.index;
        member.state = state_of(row.getState(), "status.members[].state");
        member.incarnation = row.getIncarnation();
        member.since = time_of(row.getSinceUs(), "status.members[].sinceUs");
        m.members.push_back(std::move(member));
      }
      return m;
    }
    case w::Envelope::RESULTS_REQUEST:
      return ResultsRequest{env.getResultsRequest().getFrom(), env.getResultsRequest().getMax()};
    case w::Envelope::RESULTS: {
      const auto in = env.getResults();
      ResultsReply m;
      require(in.getRecords().size() <= kMaxResultsPerReply, "results.records lists more than 10000 records");
      for (const auto record : in.getRecords()) m.records.push_back(get_record(record));
      m.total = in.getTotal();
      return m;
    }
    case w::Envelope::DRAIN:
      return Drain{};
    case w::Envelope::SHUTDOWN:
      return Shutdown{env.getShutdown().getLeave()};
    case w::Envelope::ACK:
      return Ack{};
    case w::Envelope::UNDRAIN:
      return Undrain{};
    case w::Envelope::MEMBER_PING: {
      const auto in = env.getMemberPing();
      return MemberPing{in.getSeq(), member_text(in.getTarget(), "memberPing.target", false),
                        get_updates(in.getUpdates(), kMaxPiggybackedUpdates, "memberPing.updates")};
    }
    case w::Envelope::MEMBER_ACK: {
      const auto in = env.getMemberAck();
      return MemberAck{in.getSeq(), get_updates(in.getUpdates(), kMaxPiggybackedUpdates, "memberAck.updates")};
    }
    case w::Envelope::MEMBER_PING_REQ: {
      const auto in = env.getMemberPingReq();
      return MemberPingReq{in.getSeq(), member_text(in.getTarget(), "memberPingReq.target", false),
                           get_updates(in.getUpdates(), kMaxPiggybackedUpdates, "memberPingReq.updates")};
    }
    case w::Envelope::MEMBER_SYNC: {
      const auto in = env.getMemberSync();
      return MemberSync{get_updates(in.getMembers(), kMaxMembers, "memberSync.members"), in.getWantsAnswer()};
    }
  }
  throw Invalid("unknown message");  // reached only for a union arm this version does not know
}

}  // namespace

Frame encode(const WireMessage& message) {
  capnp::MallocMessageBuilder builder;
  std::visit(Encoder{builder.initRoot<w::Envelope>()}, message);
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(builder);
  const auto bytes = words.asBytes();
  return {bytes.begin(), bytes.end()};
}

std::variant<FrameNeed, DecodeError> frame_size(std::span<const std::uint8_t> prefix, const CodecLimits& limits) {
  const auto u32 = [&](std::size_t at) {
    std::uint32_t value = 0;
    std::memcpy(&value, prefix.data() + at, sizeof value);  // Cap'n Proto is little-endian, as are our hosts
    return value;
  };
  if (prefix.size() < 8) return FrameNeed{8, false};
  const std::uint64_t segments = std::uint64_t{u32(0)} + 1;
  if (segments > limits.max_segments) {
    return DecodeError{Error::Code::frame_too_large, "frame has " + std::to_string(segments) + " segments; at most " +
                                                         std::to_string(limits.max_segments)};
  }
  const std::size_t table_bytes = (4 + 4 * segments + 7) / 8 * 8;
  if (prefix.size() < table_bytes) return FrameNeed{table_bytes, false};
  std::uint64_t total = table_bytes;
  for (std::uint64_t i = 0; i < segments; ++i) total += std::uint64_t{u32(4 + 4 * i)} * 8;
  if (total > limits.max_frame_bytes) {
    return DecodeError{Error::Code::frame_too_large, "frame of " + std::to_string(total) + " bytes; at most " +
                                                         std::to_string(limits.max_frame_bytes)};
  }
  return FrameNeed{static_cast<std::size_t>(total), true};
}

std::variant<WireMessage, DecodeError> decode(std::span<const std::uint8_t> frame, const CodecLimits& limits) {
  if (frame.size() % 8 != 0 || frame.empty()) {
    return DecodeError{Error::Code::malformed,
                       "frame of " + std::to_string(frame.size()) + " bytes is not a whole number of 8-byte words"};
  }
  // Copy into word-aligned memory: the reader wants aligned words.
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(frame.size() / 8);
  std::memcpy(words.begin(), frame.data(), frame.size());
  try {
    capnp::ReaderOptions options;
    options.traversalLimitInWords = limits.traversal_limit_words;
    options.nestingLimit = limits.nesting_limit;
    capnp::FlatArrayMessageReader reader(words.asPtr(), options);
    if (reader.getEnd() != words.end()) {
      return DecodeError{Error::Code::malformed, "frame has bytes after its last segment"};
    }
    const auto envelope = reader.getRoot<w::Envelope>();
    // One arm per WireMessage alternative: anything past the last is from a newer schema.
    // attReplyWithPart is an attReply's second form: one arm more than alternatives.
    constexpr auto kLastArm = w::Envelope::ATT_REPLY_WITH_PART;
    static_assert(static_cast<std::size_t>(kLastArm) == std::variant_size_v<WireMessage>);
    if (static_cast<unsigned>(envelope.which()) > static_cast<unsigned>(kLastArm)) {
      return DecodeError{Error::Code::unknown_message,
                         "unknown message (union arm " + std::to_string(static_cast<unsigned>(envelope.which())) + ")"};
    }
    return decode_envelope(envelope);
  } catch (const Invalid& invalid) {
    return DecodeError{Error::Code::malformed, invalid.what()};
  } catch (const kj::Exception& exception) {
    return DecodeError{Error::Code::malformed,
                       std::string("not a valid Envelope: ") + exception.getDescription().cStr()};
  }
}

std::uint32_t size_class(const Message& message) {
  constexpr std::uint32_t kReasons = 64;
  const auto type = static_cast<std::uint32_t>(message.index()) * kReasons;
  if (const auto* reject = std::get_if<JobReject>(&message)) return type + static_cast<std::uint32_t>(reject->reason);
  if (const auto* reply = std::get_if<AttReply>(&message)) return type + (reply->link_capacity_mbps > 0 ? 1U : 0U);
  return type;
}

}  // namespace gridpeer::protocol
