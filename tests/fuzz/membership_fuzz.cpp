// libFuzzer: two members of the grid's membership (peer/core/membership)
// sharing one roster, fed an arbitrary sequence of inputs: membership messages
// from members known, unknown and itself, about members known, unknown and
// itself, with cards that match or do not; time passing; a join and a leave.
// What one sends to the other is delivered. Neither may crash; after every
// input both keep their invariants (counts recounted from their views,
// suspicions with timers), never hold themselves among the others, and never
// exceed the roster's capacity or their member bound.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "peer/core/membership/membership.hpp"

using namespace gridpeer;
using namespace gridpeer::membership;

namespace {

// A is fed; B shares its roster; C and D are known from the start; E and F
// are strangers; "" is a nameless sender.
const std::vector<std::string> kNames = {"A", "B", "C", "D", "E", "F", ""};

MemberCard card_of(const std::string& name, int port = 7000) {
  MemberCard card;
  card.name = name;
  card.address = name + ":" + std::to_string(port);
  card.server.name = name;
  return card;
}

const std::string& any_name(FuzzedDataProvider& in) {
  return kNames[in.ConsumeIntegralInRange<std::size_t>(0, kNames.size() - 1)];
}

std::vector<MemberUpdate> updates(FuzzedDataProvider& in) {
  std::vector<MemberUpdate> out(in.ConsumeIntegralInRange<std::size_t>(0, 6));
  for (MemberUpdate& update : out) {
    update.member = any_name(in);
    update.incarnation = in.ConsumeIntegralInRange<std::uint32_t>(0, 4);
    update.state = static_cast<protocol::MemberState>(in.ConsumeIntegralInRange<int>(0, 3));
    if (in.ConsumeBool()) update.by = any_name(in);
    if (in.ConsumeBool())
      update.card = card_of(in.ConsumeBool() ? update.member : any_name(in), in.ConsumeBool() ? 7000 : 7001);
  }
  return out;
}

MembershipMessage message(FuzzedDataProvider& in) {
  const auto seq = in.ConsumeIntegralInRange<std::uint64_t>(0, 24);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return protocol::MemberPing{seq, any_name(in), updates(in)};
    case 1:
      return protocol::MemberAck{seq, updates(in)};
    case 2:
      return protocol::MemberPingReq{seq, any_name(in), updates(in)};
    default:
      return protocol::MemberSync{updates(in), in.ConsumeBool()};
  }
}

void check(const Membership& member, const Roster& roster, const MembershipConfig& config) {
  try {
    member.check_invariants();
  } catch (const std::logic_error&) {
    std::abort();
  }
  if (member.member(member.name())) std::abort();  // itself among the others
  if (member.known_members() > config.max_members || member.live_members() > member.known_members()) std::abort();
  if (roster.size() > roster.capacity()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  MembershipConfig config;
  config.forget_after = std::chrono::seconds(in.ConsumeIntegralInRange<int>(1, 120));
  config.syncs = in.ConsumeBool();
  config.max_piggyback = in.ConsumeIntegralInRange<std::size_t>(1, 8);
  config.indirect_probes = in.ConsumeIntegralInRange<int>(0, 3);
  config.max_members = in.ConsumeIntegralInRange<std::size_t>(3, 6);
  Roster roster(in.ConsumeIntegralInRange<std::size_t>(4, 7));
  for (const char* name : {"A", "B", "C", "D"}) roster.add(card_of(name));
  TimePoint now{};
  Membership a(card_of("A"), 0, config, Rng(in.ConsumeIntegral<std::uint64_t>()), now, roster);
  Membership b(card_of("B"), 0, config, Rng(7), now, roster);
  // One from the range, the other card by card.
  a.add_known_range(0, 4, now);
  b.add_known({card_of("A"), card_of("B"), card_of("C"), card_of("D")}, now);

  const auto deliver = [&](Membership& from, Membership& to) {
    for (const MembershipOutput& output : from.take_outputs()) {
      const auto* send = std::get_if<MemberSend>(&output);
      if (send == nullptr) continue;
      if (send->to.empty() && send->address.empty()) std::abort();  // sent nowhere
      if (send->to == to.name()) to.on_message(from.name(), send->message, now);
    }
  };
  for (int step = 0; step < 256 && in.remaining_bytes() > 0; ++step) {
    switch (in.ConsumeIntegralInRange<int>(0, 6)) {
      case 0:
        now += std::chrono::milliseconds(in.ConsumeIntegralInRange<int>(0, 5000));
        a.advance(now);
        b.advance(now);
        break;
      case 4:
        a.leave(now);
        break;
      case 5:
        a.join({card_of(any_name(in))}, now);
        break;
      default:
        a.on_message(any_name(in), message(in), now);
        break;
    }
    deliver(a, b);
    deliver(b, a);
    a.take_outputs();
    check(a, roster, config);
    check(b, roster, config);
  }
  return 0;
}
