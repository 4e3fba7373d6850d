#pragma once
// Every message that crosses a gridpeer connection, as plain structs: the
// grid messages the core speaks (messages.hpp) plus the hand-off, staging,
// liveness and client messages the daemon adds. codec.hpp maps them to the
// Cap'n Proto schema (gridpeer.capnp) and back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "peer/model/job_record.hpp"
#include "protocol/membership.hpp"
#include "protocol/messages.hpp"

namespace gridpeer::protocol {

inline constexpr std::uint16_t kProtocolVersion = 2;

struct Hello {
  enum class Role { peer, client };
  std::uint16_t version = kProtocolVersion;
  Role role = Role::peer;
  PeerId peer = 0;
  std::string name;
  std::string site;
  int nodes = 0;
  int cpus_per_node = 0;
  int mhz = 0;
  double time_scale = 1;
  std::int64_t epoch_unix_us = 0;
  std::string algorithm;
  std::uint64_t boot_id = 0;  ///< peers: new at every start, so that partners can tell a restart from a partition
  bool journaled = false;     ///< peers: a restart keeps what it had promised (--state-dir)
  std::string address;        ///< peers: "host:port" where other peers reach it
  /// Peers: asks to join the grid; `peer` is not set yet. The member asked
  /// answers with its hello and a MemberSync of every member (the joiner's
  /// own card carrying the index it is given), then closes.
  bool joining = false;
  /// Peers: it keeps the grid's members (takes MemberSync); an older peer
  /// does not and is sent none.
  bool membership = false;
  std::uint64_t incarnation = 0;  ///< peers: its starts
};

// Hand-off: JobOffer (the offer), JobAccept, JobCommit and JobReject are core messages (messages.hpp).

struct TransferBegin {
  JobId job = 0;
  std::uint32_t attempt = 0;  ///< the hand-off attempt an input belongs to
  bool output = false;        ///< else input
  std::uint64_t bytes = 0;
  std::uint64_t payload_bytes = 0;
  TimePoint start{};  ///< outputs: when the job ran, by the executor's clock
  TimePoint finish{};
};
struct DataChunk {
  JobId job = 0;
  bool output = false;
  std::vector<std::uint8_t> payload;
};
struct Completion {
  JobId job = 0;
  TimePoint start{};
  TimePoint finish{};
};
struct Heartbeat {
  TimePoint sent{};
};
struct Error {
  enum class Code {
    malformed,
    version_mismatch,
    unknown_message,
    frame_too_large,
    unknown_peer,
    config_mismatch,
    not_accepted
  };
  Code code = Code::malformed;
  std::string detail;
};

/// A job's end as results report it: completed, or failed with a reason.
/// One server's share of a job split over several (co-allocation).
struct ResultPart {
  ServerIndex server = 0;
  int cpus = 0;
  double lowest_share = 1;  ///< the least share of its link it ran at
  friend bool operator==(const ResultPart&, const ResultPart&) = default;
};

struct ResultRecord {
  using Outcome = JobOutcome;
  JobRecord record;
  Outcome outcome = Outcome::completed;
  std::string reason;
  /// A job split over servers: its parts (record.executed_on is the largest's); empty otherwise.
  std::vector<ResultPart> parts;
};

/// Parts one result may list: no more than the grid's peers.
constexpr std::size_t kMaxResultParts = 1024;

struct Submit {
  Job job;  ///< id 0: the peer assigns one
};
/// Jobs of one bag, taken in one go; decoding sets each job's Job::bag to `bag`.
struct SubmitBag {
  std::uint32_t bag = 0;  ///< > 0
  std::vector<Job> jobs;
};
struct SubmitAck {
  JobId job = 0;
  bool accepted = false;
  std::string reason;
};
struct StatusRequest {};
/// A member of the grid as one peer sees it.
struct MemberStatus {
  PeerId index = 0;
  MemberCard card;
  MemberState state = MemberState::alive;
  std::uint64_t incarnation = 0;  ///< the gossip's: its start count, raised by each refutation
  TimePoint since{};              ///< its last change of state
};
struct PeerStatus {
  PeerId peer = 0;
  std::string name;
  TimePoint now{};
  std::uint32_t grid_queue = 0;
  std::uint32_t local_queue = 0;
  std::uint32_t running = 0;
  std::uint32_t awaiting_input = 0;
  double ru = 0;
  std::vector<PeerId> connected;
  std::uint64_t completed = 0;
  std::uint64_t submitted = 0;
  std::uint64_t jobs_sent = 0;
  std::uint64_t jobs_received = 0;
  bool draining = false;
  std::uint64_t lost = 0;
  std::uint64_t recovered = 0;        ///< own jobs taken up again from the journal at this start
  std::uint64_t incarnation = 0;      ///< starts of this peer
  std::vector<MemberStatus> members;  ///< every other member it knows
};
struct ResultsRequest {
  std::uint64_t from = 0;
  std::uint32_t max = 0;
};
struct ResultsReply {
  std::vector<ResultRecord> records;
  std::uint64_t total = 0;
};
struct Drain {};
struct Shutdown {
  bool leave = false;  ///< and leave the grid (gridctl leave): partners count it as gone
};
struct Undrain {};
struct Ack {};

/// List bounds a decoder enforces: a list of empty structs costs the sender
/// almost nothing per element, so without them a 100-byte frame could decode
/// into a million records (found by tests/fuzz/message_fuzz).
constexpr std::size_t kMaxResultsPerReply = 10'000;
constexpr std::size_t kMaxPeers = 100'000;
constexpr std::size_t kMaxBagJobs = 100'000;

/// Value bounds a decoder enforces: with them no sum or product
/// the core forms from wire values overflows int64 microseconds -- a run
/// time at the fastest origin on the slowest executor (10 years x 10,000
/// MHz = 3.2e18 us) plus any time below (3.2e17 us) -- and no assertion of
/// the core can be reached from a frame. A job of 10 years or a clock of
/// 10 GHz is beyond any grid these peers model.
constexpr std::int64_t kMaxWireDurationUs = 10LL * 365 * 24 * 3600 * 1'000'000;  // 10 years
constexpr std::int64_t kMaxWireTimeUs = 10'000LL * 365 * 24 * 3600 * 1'000'000;  // +-10,000 years
constexpr std::int32_t kMaxWireCpus = 1 << 20;
constexpr std::int32_t kMaxWireMhz = 10'000;
constexpr std::uint64_t kMaxWireBytes = 1ULL << 50;  // 1 PiB of modelled data per job
/// A year of virtual time, in microseconds.
constexpr std::int64_t kYearUs = 365LL * 24 * 3600 * 1'000'000;
/// Where a grid's virtual time ends: 1,000 years short of the wire's bound,
/// since what a peer sends is its now plus at most a job's scaled run time or
/// a queue's forecast. Past it a peer takes no new work (peer/transport/epoch_bounds.hpp).
constexpr std::int64_t kVirtualTimeEndUs = kMaxWireTimeUs - 1'000 * kYearUs;
/// A peer starts, or takes a partner's epoch, only with at least this much
/// virtual time left before the end (docs/security.md, "Virtual time").
constexpr std::int64_t kVirtualTimeHorizonUs = 100 * kYearUs;
/// A peer's epoch (the real time of virtual time 0): between 2000 and 2100.
constexpr std::int64_t kMinWireEpochUs = 946'684'800'000'000;
constexpr std::int64_t kMaxWireEpochUs = 4'102'444'800'000'000;
constexpr double kMaxWireTimeScale = 1e6;

/// What clients send a peer, and what it answers them with.
using ClientRequest = std::variant<Submit, SubmitBag, StatusRequest, ResultsRequest, Drain, Shutdown, Undrain>;
using ClientReply = std::variant<SubmitAck, PeerStatus, ResultsReply, Ack>;
/// What peers send one another besides the core's messages (messages.hpp).
using PeerMessage = std::variant<TransferBegin, DataChunk, Completion, Heartbeat, Error>;

using WireMessage =
    std::variant<Hello, AttQuery, AttReply, Volunteer, JobOffer, JobAccept, JobReject, JobCommit, TransferBegin,
                 DataChunk, Completion, Heartbeat, Error, Submit, SubmitAck, StatusRequest, PeerStatus, ResultsRequest,
                 ResultsReply, Drain, Shutdown, Ack, PlaceRequest, Placement, SubmitBag, Undrain, MemberPing, MemberAck,
                 MemberPingReq, MemberSync, PartPrepare, PartReport, PartDecision>;

/// A member's name or address on the wire: at most this many bytes.
constexpr std::size_t kMaxMemberText = 255;
/// Updates one probe or ack may carry; a whole view may list every member.
constexpr std::size_t kMaxPiggybackedUpdates = 1024;
constexpr std::size_t kMaxMembers = std::size_t{1} << 20;

/// A core message as a wire message (the core speaks a subset).
inline WireMessage to_wire(const Message& message) {
  return std::visit([](const auto& m) -> WireMessage { return m; }, message);
}

/// The schema's name of a message's union arm (for logs and errors).
const char* message_name(const WireMessage& message);
const char* to_string(Error::Code code);

}  // namespace gridpeer::protocol
