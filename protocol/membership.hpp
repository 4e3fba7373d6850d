#pragma once
// The messages of the grid's membership (peer/core/membership), as plain
// structs: failure detection and dissemination after SWIM (Das, Gupta &
// Motivala 2002) -- a direct probe, indirect probes through other members,
// updates piggybacked on both -- and the full-state exchange a joining member
// and a healed partition use.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "peer/model/server.hpp"

namespace gridpeer::protocol {

/// What a member is to the others. Suspect: it missed a probe and its
/// indirect probes, and may refute; dead: it did not refute in time; left: it
/// said it was going. A member that comes back does so with a higher
/// incarnation, which overrides every state of a lower one.
enum class MemberState : std::uint8_t { alive, suspect, dead, left };
const char* to_string(MemberState state);

inline constexpr std::uint32_t kNoMemberIndex = 0xFFFFFFFF;

/// What a member tells of itself: its name (its certificate's), where its
/// peers reach it, and the server it brings to the grid.
struct MemberCard {
  std::string name;
  std::string address;  ///< "host:port" of its peer port; empty in gridsim
  ServerSpec server;
  /// Its server index in the grid (in every job id it numbers): set by the
  /// member it joined through, kNoMemberIndex until then and in gridsim.
  std::uint32_t index = kNoMemberIndex;

  friend bool operator==(const MemberCard&, const MemberCard&) = default;
};

/// One fact about one member, as gossip carries it.
struct MemberUpdate {
  std::string member;
  std::uint32_t incarnation = 0;
  MemberState state = MemberState::alive;
  /// Suspect: the member that suspects it (independent suspicions shorten
  /// the time-out, after Lifeguard).
  std::string by;
  /// Alive: how to reach the member and what it brings (a new member is
  /// known by this alone).
  std::optional<MemberCard> card;
};

/// "Are you there?" -- straight from the prober, or relayed for one that
/// asked (PingReq). `target` lets a member tell a probe meant for another
/// that reused its address.
struct MemberPing {
  std::uint64_t seq = 0;
  std::string target;
  std::vector<MemberUpdate> updates;
};

/// The answer to a Ping, or a relayed one's answer passed back.
struct MemberAck {
  std::uint64_t seq = 0;
  std::vector<MemberUpdate> updates;
};

/// "Probe `target` for me": the indirect probe, sent to a few members when a
/// direct probe got no answer in time.
struct MemberPingReq {
  std::uint64_t seq = 0;
  std::string target;
  std::vector<MemberUpdate> updates;
};

/// Every member the sender knows, in one message: a joining member's first
/// word (itself alone, `answer` asked for), the answer to it, and the
/// periodic exchange that heals a partition.
struct MemberSync {
  std::vector<MemberUpdate> members;
  bool wants_answer = false;
};

using MembershipMessage = std::variant<MemberPing, MemberAck, MemberPingReq, MemberSync>;

}  // namespace gridpeer::protocol
