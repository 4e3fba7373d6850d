// The grid's membership (peer/core/membership): SWIM's rules by hand, then
// whole grids in virtual time (sim/driver/membership_grid) -- a join, a
// suspicion refuted, a suspicion confirmed, a leave, a partition that heals,
// and loss that must not kill anyone.
#define BOOST_TEST_MODULE membership
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <ostream>
#include <variant>

#include "peer/core/membership/gossip_queue.hpp"
#include "peer/core/membership/membership.hpp"
#include "sim/driver/membership_grid.hpp"

namespace gridpeer::protocol {
std::ostream& operator<<(std::ostream& out, MemberState state) {
  return out << to_string(state);
}
}  // namespace gridpeer::protocol

using namespace gridpeer;
using membership::GossipQueue;
using membership::Membership;
using membership::MembershipConfig;
using protocol::MemberState;
using protocol::MemberUpdate;
using std::chrono::milliseconds;

namespace {

TimePoint at_ms(std::int64_t ms) {
  return TimePoint{milliseconds(ms)};
}

protocol::MemberCard card(const std::string& name) {
  protocol::MemberCard c;
  c.name = name;
  c.address = name + ":7000";
  c.server.name = name;
  return c;
}

template <class T>
std::vector<T> of_kind(const std::vector<membership::MembershipOutput>& outputs) {
  std::vector<T> out;
  for (const auto& output : outputs) {
    if (const auto* value = std::get_if<T>(&output)) out.push_back(*value);
  }
  return out;
}

/// The first time `observer` saw `member` become `state`, or kNever.
TimePoint first_seen(const sim::MembershipGrid& grid, const std::string& observer, const std::string& member,
                     MemberState state) {
  for (const auto& seen : grid.changes()) {
    if (seen.observer == observer && seen.change.member == member && seen.change.after == state) return seen.at;
  }
  return kNever;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(rules)

BOOST_AUTO_TEST_CASE(suspicion_timeouts_and_retransmits_by_hand) {
  const MembershipConfig config;  // T 1 s, mult 4, max mult 6
  // 3 members: log10 3 < 1, so 4 periods; k = 4 - 2 = 2 but only 1 other
  // could confirm, so no shortening.
  BOOST_TEST(Membership::suspicion_timeout(config, 3, 0) == seconds(4));
  // 100 members: 4 x 2 = 8 s shortest, 48 s longest, k = 2:
  // c = 1: 48 - (ln 2 / ln 3) x 40 = 22.762 s; c = 2: 8 s.
  BOOST_TEST(Membership::suspicion_timeout(config, 100, 0) == seconds(48));
  BOOST_TEST(Membership::suspicion_timeout(config, 100, 1) == Duration{milliseconds(22762)});
  BOOST_TEST(Membership::suspicion_timeout(config, 100, 2) == seconds(8));
  BOOST_TEST(Membership::suspicion_timeout(config, 100, 5) == seconds(8));
  // Sent 4 x ceil(log10(n + 1)) times.
  BOOST_TEST(Membership::retransmit_limit(config, 3) == 4);
  BOOST_TEST(Membership::retransmit_limit(config, 9) == 4);
  BOOST_TEST(Membership::retransmit_limit(config, 10) == 8);
  BOOST_TEST(Membership::retransmit_limit(config, 100) == 12);
  // Whole views every 30 s up to 32 members; at 1,000, log2 = 9.97, so
  // ceil(4.97) + 1 = 6 intervals.
  BOOST_TEST(Membership::sync_interval(config, 32) == seconds(30));
  BOOST_TEST(Membership::sync_interval(config, 33) == seconds(60));
  BOOST_TEST(Membership::sync_interval(config, 1000) == seconds(180));
}

BOOST_AUTO_TEST_CASE(gossip_goes_least_sent_first_and_a_newer_fact_replaces_an_older) {
  GossipQueue queue;
  queue.push(MemberUpdate{"a", 0, MemberState::suspect, "x", std::nullopt});
  queue.push(MemberUpdate{"b", 0, MemberState::alive, {}, std::nullopt});
  queue.push(MemberUpdate{"c", 0, MemberState::dead, {}, std::nullopt});
  // Two of three, oldest first; each now sent once.
  auto first = queue.take(2, 2);
  BOOST_TEST_REQUIRE(first.size() == 2U);
  BOOST_TEST(first[0].member == "a");
  BOOST_TEST(first[1].member == "b");
  // c has been sent fewer times, so it comes first; a newer fact about a
  // replaces the old one and starts its count again.
  queue.push(MemberUpdate{"a", 1, MemberState::alive, {}, std::nullopt});
  auto second = queue.take(3, 2);
  BOOST_TEST_REQUIRE(second.size() == 3U);
  BOOST_TEST(second[0].member == "c");
  BOOST_TEST(second[1].member == "a");
  BOOST_TEST(second[1].incarnation == 1U);
  BOOST_TEST(second[2].member == "b");
  // b reached its limit of 2 and is gone; a and c have one sending left;
  // skipping a leaves c alone.
  BOOST_TEST(queue.size() == 2U);
  auto third = queue.take(3, 2, "a");
  BOOST_TEST_REQUIRE(third.size() == 1U);
  BOOST_TEST(third[0].member == "c");
  BOOST_TEST(queue.size() == 1U);
  queue.check_invariants();
}

BOOST_AUTO_TEST_CASE(a_probe_answered_suspects_no_one) {
  const MembershipConfig config;
  const TimePoint start = at_ms(0);
  Membership a(card("A"), 0, config, Rng(1), start);
  Membership b(card("B"), 0, config, Rng(2), start);
  a.add_known({card("A"), card("B")}, start);
  b.add_known({card("A"), card("B")}, start);
  BOOST_TEST(a.take_outputs().empty());  // the topology's members are no news to its host
  BOOST_TEST(b.take_outputs().empty());
  BOOST_TEST(a.live_members() == 1U);
  // A's first period: one Ping to B, to B's address, with nothing to gossip.
  const TimePoint tick = a.next_deadline();
  BOOST_TEST((tick >= start && tick < start + config.period));
  a.advance(tick);
  auto sent = of_kind<membership::MemberSend>(a.take_outputs());
  BOOST_TEST_REQUIRE(sent.size() == 1U);
  BOOST_TEST(sent[0].to == "B");
  BOOST_TEST(sent[0].address == "B:7000");
  const auto& ping = std::get<protocol::MemberPing>(sent[0].message);
  BOOST_TEST(ping.target == "B");
  BOOST_TEST(ping.updates.empty());
  // B answers with the same sequence number.
  b.on_message("A", sent[0].message, tick + milliseconds(1));
  auto answer = of_kind<membership::MemberSend>(b.take_outputs());
  BOOST_TEST_REQUIRE(answer.size() == 1U);
  BOOST_TEST(answer[0].to == "A");
  BOOST_TEST(std::get<protocol::MemberAck>(answer[0].message).seq == ping.seq);
  a.on_message("B", answer[0].message, tick + milliseconds(2));
  // No PingReq at the probe time-out, no suspicion at the next period: its
  // next output is the next period's Ping.
  a.advance(tick + config.period);
  sent = of_kind<membership::MemberSend>(a.take_outputs());
  BOOST_TEST_REQUIRE(sent.size() == 1U);
  BOOST_TEST(std::holds_alternative<protocol::MemberPing>(sent[0].message));
  BOOST_TEST(a.member("B")->state == MemberState::alive);
  BOOST_TEST(a.counters().indirect_probes == 0U);
  BOOST_TEST(a.counters().suspicions == 0U);
  a.check_invariants();
  b.check_invariants();
}

BOOST_AUTO_TEST_CASE(a_suspect_that_hears_of_it_refutes_with_a_higher_incarnation) {
  const MembershipConfig config;
  Membership c(card("C"), 0, config, Rng(3), at_ms(0));
  c.add_known({card("A"), card("B"), card("C")}, at_ms(0));
  c.take_outputs();
  // A suspects C at incarnation 0 and says so on its probe.
  protocol::MemberPing ping{7, "C", {MemberUpdate{"C", 0, MemberState::suspect, "A", std::nullopt}}};
  c.on_message("A", ping, at_ms(10));
  BOOST_TEST(c.incarnation() == 1U);
  BOOST_TEST(c.counters().refutations == 1U);
  // Its ack carries "alive at 1", with its card.
  auto sent = of_kind<membership::MemberSend>(c.take_outputs());
  BOOST_TEST_REQUIRE(sent.size() == 1U);
  const auto& ack = std::get<protocol::MemberAck>(sent[0].message);
  BOOST_TEST(ack.seq == 7U);
  BOOST_TEST_REQUIRE(ack.updates.size() == 1U);
  BOOST_TEST(ack.updates[0].member == "C");
  BOOST_TEST(ack.updates[0].incarnation == 1U);
  BOOST_TEST((ack.updates[0].state == MemberState::alive));
  BOOST_TEST(ack.updates[0].card.has_value());
  // A stale suspicion (incarnation 0) is not refuted again.
  c.on_message("B", protocol::MemberPing{8, "C", {MemberUpdate{"C", 0, MemberState::suspect, "B", std::nullopt}}},
               at_ms(20));
  BOOST_TEST(c.incarnation() == 1U);
}

BOOST_AUTO_TEST_CASE(a_member_not_run_for_ten_periods_judges_no_one_for_it) {
  // A process stopped or starved (SIGSTOP, a paused VM) heard nothing while
  // its timers fell due, through no fault of the others: its timers move
  // past the gap instead of firing as if every probe had gone unanswered.
  const MembershipConfig config;  // period 1 s, probe time-out 400 ms
  Membership a(card("A"), 0, config, Rng(1), at_ms(0));
  a.add_known({card("B"), card("C")}, at_ms(0));
  const TimePoint t0 = a.next_deadline();
  a.advance(t0);  // a Ping to B or C; its time-out due at t0 + 400 ms
  // B suspects C: the suspicion, among 2 others, lasts 4 periods (4 s) and
  // is due at t0 + 1 ms + 4 s.
  a.on_message("B", protocol::MemberPing{9, "A", {MemberUpdate{"C", 0, MemberState::suspect, "B", std::nullopt}}},
               t0 + milliseconds(1));
  BOOST_TEST(a.member("C")->state == MemberState::suspect);
  a.take_outputs();
  // Not run for ten seconds: the earliest timer (the probe's time-out, due
  // at t0 + 400 ms) was 9.6 s late, and every timer moves by that.
  a.advance(t0 + seconds(10));
  BOOST_TEST(a.counters().suspicions == 0U);  // no probe of the gap was judged (C's was B's)
  BOOST_TEST(a.counters().stalls == 1U);
  BOOST_TEST(a.member("C")->state == MemberState::suspect);
  BOOST_TEST(a.member("B")->state != MemberState::dead);
  a.take_outputs();
  // C's suspicion keeps the 3.999 s it had left: dead at t0 + 13.601 s,
  // this member now run at every deadline as a driver does.
  const auto run_until = [&](TimePoint until) {
    while (a.next_deadline() <= until) a.advance(a.next_deadline());
    a.advance(until);
  };
  run_until(t0 + milliseconds(13'600));
  BOOST_TEST(a.member("C")->state == MemberState::suspect);
  run_until(t0 + milliseconds(13'601));
  BOOST_TEST(a.counters().stalls == 1U);
  BOOST_TEST(a.member("C")->state == MemberState::dead);
  a.check_invariants();
}

BOOST_AUTO_TEST_CASE(alive_overrides_only_a_lower_incarnation_and_left_is_final_for_its_own) {
  const MembershipConfig config;
  Membership a(card("A"), 0, config, Rng(4), at_ms(0));
  a.add_known({card("A"), card("B"), card("C")}, at_ms(0));
  a.take_outputs();
  const auto hear = [&](MemberUpdate update, std::int64_t ms) {
    a.on_message("C", protocol::MemberPing{1, "A", {std::move(update)}}, at_ms(ms));
  };
  hear(MemberUpdate{"B", 0, MemberState::suspect, "C", std::nullopt}, 10);
  BOOST_TEST((a.member("B")->state == MemberState::suspect));
  hear(MemberUpdate{"B", 0, MemberState::alive, {}, card("B")}, 20);  // same incarnation: no
  BOOST_TEST((a.member("B")->state == MemberState::suspect));
  hear(MemberUpdate{"B", 1, MemberState::alive, {}, card("B")}, 30);  // refuted
  BOOST_TEST((a.member("B")->state == MemberState::alive));
  BOOST_TEST(a.member("B")->incarnation == 1U);
  hear(MemberUpdate{"B", 1, MemberState::left, {}, std::nullopt}, 40);
  BOOST_TEST((a.member("B")->state == MemberState::left));
  hear(MemberUpdate{"B", 1, MemberState::suspect, "C", std::nullopt}, 50);  // nothing overrides it at 1
  hear(MemberUpdate{"B", 1, MemberState::alive, {}, card("B")}, 60);
  BOOST_TEST((a.member("B")->state == MemberState::left));
  hear(MemberUpdate{"B", 2, MemberState::alive, {}, card("B")}, 70);  // back, at 2
  BOOST_TEST((a.member("B")->state == MemberState::alive));
  // Unknown members are learnt from an alive fact with a card only.
  hear(MemberUpdate{"D", 0, MemberState::suspect, "C", std::nullopt}, 80);
  BOOST_TEST(!a.member("D"));
  hear(MemberUpdate{"D", 0, MemberState::alive, {}, card("D")}, 90);
  BOOST_TEST_REQUIRE(a.member("D").has_value());
  BOOST_TEST(a.member("D")->card.address == "D:7000");
  a.check_invariants();
}

BOOST_AUTO_TEST_CASE(members_sharing_a_roster_keep_their_own_views) {
  const MembershipConfig config;
  membership::Roster roster;
  for (const char* name : {"A", "B", "C"}) BOOST_TEST_REQUIRE(roster.add(card(name)).has_value());
  Membership a(card("A"), 0, config, Rng(5), at_ms(0), roster);
  Membership b(card("B"), 0, config, Rng(6), at_ms(0), roster);
  a.add_known_range(0, 3, at_ms(0));
  b.add_known_range(0, 3, at_ms(0));
  BOOST_TEST(a.live_members() == 2U);
  BOOST_TEST(a.known_members() == 2U);
  BOOST_TEST(!a.member("A"));  // itself
  BOOST_TEST((a.member("C")->state == MemberState::alive));
  BOOST_TEST(a.member("C")->since == at_ms(0));
  // C comes back at incarnation 1 with another address: A's view holds the
  // new card; the roster and B's view keep the first.
  protocol::MemberCard moved = card("C");
  moved.address = "C:7001";
  a.on_message("B", protocol::MemberPing{1, "A", {MemberUpdate{"C", 1, MemberState::alive, {}, moved}}}, at_ms(10));
  BOOST_TEST(a.member("C")->card.address == "C:7001");
  BOOST_TEST(a.member("C")->incarnation == 1U);
  BOOST_TEST(b.member("C")->card.address == "C:7000");
  BOOST_TEST(roster.card(2).address == "C:7000");
  // A member A learns of enters the roster once; B does not know it.
  a.on_message("B", protocol::MemberPing{2, "A", {MemberUpdate{"D", 0, MemberState::alive, {}, card("D")}}}, at_ms(20));
  BOOST_TEST(roster.size() == 4U);
  BOOST_TEST(a.known_members() == 3U);
  BOOST_TEST(b.known_members() == 2U);
  BOOST_TEST(!b.member("D"));
  // A's whole view, by roster index: itself, B, C with its new card, D.
  a.take_outputs();
  a.on_message("B", protocol::MemberSync{{}, true}, at_ms(30));
  const auto sends = of_kind<membership::MemberSend>(a.take_outputs());
  BOOST_TEST_REQUIRE(sends.size() == 1U);
  const auto& view = std::get<protocol::MemberSync>(sends[0].message).members;
  BOOST_TEST_REQUIRE(view.size() == 4U);
  BOOST_TEST(view[0].member == "A");
  BOOST_TEST(view[1].member == "B");
  BOOST_TEST(view[2].member == "C");
  BOOST_TEST(view[2].incarnation == 1U);
  BOOST_TEST(view[2].card->address == "C:7001");
  BOOST_TEST(view[3].member == "D");
  a.check_invariants();
  b.check_invariants();
}

BOOST_AUTO_TEST_CASE(a_dead_member_is_forgotten_and_learnt_again_from_an_alive_fact) {
  MembershipConfig config;
  config.forget_after = std::chrono::minutes(1);
  Membership a(card("A"), 0, config, Rng(7), at_ms(0));
  a.add_known({card("A"), card("B"), card("C")}, at_ms(0));
  a.on_message("C", protocol::MemberPing{1, "A", {MemberUpdate{"B", 0, MemberState::dead, {}, std::nullopt}}},
               at_ms(10));
  BOOST_TEST((a.member("B")->state == MemberState::dead));
  BOOST_TEST(a.live_members() == 1U);
  // Dead members are dropped at the first whole-view time (every 30 s here)
  // a minute after they died: by 100 s. C answers every probe meanwhile.
  while (a.next_deadline() <= at_ms(100'000)) {
    const TimePoint now = a.next_deadline();
    a.advance(now);
    for (const auto& send : of_kind<membership::MemberSend>(a.take_outputs())) {
      if (const auto* ping = std::get_if<protocol::MemberPing>(&send.message)) {
        a.on_message(send.to, protocol::MemberAck{ping->seq, {}}, now);
      }
    }
  }
  BOOST_TEST(a.counters().suspicions == 0U);
  BOOST_TEST(!a.member("B"));
  BOOST_TEST(a.known_members() == 1U);
  a.check_invariants();
  // Its suspicion is nothing now; an alive fact with its card brings it back.
  a.on_message("C", protocol::MemberPing{2, "A", {MemberUpdate{"B", 0, MemberState::suspect, "C", std::nullopt}}},
               at_ms(100'010));
  BOOST_TEST(!a.member("B"));
  a.on_message("C", protocol::MemberPing{3, "A", {MemberUpdate{"B", 0, MemberState::alive, {}, card("B")}}},
               at_ms(100'020));
  BOOST_TEST((a.member("B")->state == MemberState::alive));
  BOOST_TEST(a.known_members() == 2U);
  BOOST_TEST(a.live_members() == 2U);
  a.check_invariants();
}

BOOST_AUTO_TEST_CASE(nameless_senders_targets_and_members_are_ignored) {
  // Found by the membership fuzz target: a reply to no one, a probe of no
  // one, a member with no name.
  const MembershipConfig config;
  Membership a(card("A"), 0, config, Rng(9), at_ms(0));
  a.add_known({card("A"), card("B")}, at_ms(0));
  a.on_message("", protocol::MemberPing{1, "A", {}}, at_ms(10));
  a.on_message("B", protocol::MemberPingReq{2, "", {}}, at_ms(20));
  a.on_message("B", protocol::MemberPing{3, "B", {MemberUpdate{"", 0, MemberState::alive, {}, card("")}}}, at_ms(30));
  BOOST_TEST(a.take_outputs().empty());
  BOOST_TEST(a.known_members() == 1U);
  a.check_invariants();
}

BOOST_AUTO_TEST_CASE(every_live_member_is_probed_once_a_pass) {
  const MembershipConfig config;
  std::vector<protocol::MemberCard> cards;
  for (int i = 0; i < 10; ++i) cards.push_back(card("m" + std::to_string(i)));
  Membership a(cards[0], 0, config, Rng(8), at_ms(0));
  a.add_known(cards, at_ms(0));
  // m5 is dead: never probed. The other eight, once in each pass of eight
  // periods (every Ping answered, so nobody becomes suspect).
  a.on_message("m1", protocol::MemberPing{1, "m0", {MemberUpdate{"m5", 0, MemberState::dead, {}, std::nullopt}}},
               at_ms(0));
  std::vector<std::string> targets;
  while (targets.size() < 16 && a.next_deadline() < at_ms(60'000)) {
    const TimePoint now = a.next_deadline();
    a.advance(now);
    for (const auto& send : of_kind<membership::MemberSend>(a.take_outputs())) {
      if (const auto* ping = std::get_if<protocol::MemberPing>(&send.message)) {
        targets.push_back(send.to);
        a.on_message(send.to, protocol::MemberAck{ping->seq, {}}, now);
      }
    }
  }
  BOOST_TEST_REQUIRE(targets.size() == 16U);
  for (const int pass : {0, 8}) {
    std::vector<std::string> names(targets.begin() + pass, targets.begin() + pass + 8);
    std::sort(names.begin(), names.end());
    BOOST_TEST((std::adjacent_find(names.begin(), names.end()) == names.end()));
    BOOST_TEST(std::count(names.begin(), names.end(), "m5") == 0);
  }
  BOOST_TEST(a.counters().suspicions == 0U);
  a.check_invariants();
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(grids)

sim::MembershipGridOptions quick_options(std::uint64_t seed) {
  sim::MembershipGridOptions options;
  options.seed = seed;
  options.config.sync_interval = seconds(10);
  return options;
}

BOOST_AUTO_TEST_CASE(a_crashed_member_is_suspected_then_declared_dead_by_all) {
  sim::MembershipGrid grid(quick_options(11));
  grid.start_static(3, at_ms(0));
  grid.stop("m2", TimePoint{seconds(10)});
  grid.run_until(TimePoint{seconds(30)});
  grid.check_invariants();
  for (const std::string observer : {"m0", "m1"}) {
    const TimePoint suspected = first_seen(grid, observer, "m2", MemberState::suspect);
    const TimePoint dead = first_seen(grid, observer, "m2", MemberState::dead);
    BOOST_TEST_REQUIRE(suspected != kNever);
    BOOST_TEST_REQUIRE(dead != kNever);
    // Not before the crash and a missed probe; within two passes of the
    // probe order (2 x 2 periods) and the suspicion time-out (4 s at 3
    // members) -- the latest a member can be detected.
    BOOST_TEST((suspected > TimePoint{seconds(10)}));
    BOOST_TEST((dead <= TimePoint{seconds(10)} + seconds(4) + seconds(4) + milliseconds(10)));
    BOOST_TEST((dead - suspected <= seconds(4)));
  }
  BOOST_TEST(grid.holding("m2", MemberState::dead) == 2U);
  // The member that suspected first declared it dead exactly 4 s later.
  const TimePoint s0 = first_seen(grid, "m0", "m2", MemberState::suspect);
  const TimePoint s1 = first_seen(grid, "m1", "m2", MemberState::suspect);
  const std::string first = s0 <= s1 ? "m0" : "m1";
  BOOST_TEST((first_seen(grid, first, "m2", MemberState::dead) - std::min(s0, s1) == seconds(4)));
}

BOOST_AUTO_TEST_CASE(a_cut_link_is_bridged_by_indirect_probes) {
  sim::MembershipGrid grid(quick_options(12));
  grid.start_static(3, at_ms(0));
  grid.cut("m0", "m2", at_ms(0));
  grid.run_until(TimePoint{seconds(60)});
  grid.check_invariants();
  BOOST_TEST(grid.member("m0").counters().suspicions == 0U);
  BOOST_TEST(grid.member("m2").counters().suspicions == 0U);
  BOOST_TEST(grid.member("m0").counters().indirect_probes > 0U);
  BOOST_TEST(grid.holding("m2", MemberState::alive) == 2U);
}

BOOST_AUTO_TEST_CASE(a_member_cut_off_for_a_moment_refutes_and_stays) {
  // m3 is unreachable from 10 s to 16 s. Each of the three others probes it
  // at least once in any 5 periods (a pass over three members is 3), and a
  // probe sent before 15.6 s fails with its indirect probes too: all three
  // suspect m3. The suspicion time-out is 10 s (10 x 1 period, none of the
  // shortening at 4 members), long enough for m3 to hear of it once it is
  // back, and refute.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    sim::MembershipGridOptions options = quick_options(seed);
    options.config.suspicion_mult = 10;
    sim::MembershipGrid grid(options);
    grid.start_static(4, at_ms(0));
    grid.partition({{"m0", "m1", "m2"}}, TimePoint{seconds(10)});
    grid.partition({}, TimePoint{seconds(16)});
    grid.run_until(TimePoint{seconds(60)});
    grid.check_invariants();
    BOOST_TEST_CONTEXT("seed " << seed) {
      BOOST_TEST(grid.member("m3").incarnation() >= 1U);
      BOOST_TEST(grid.member("m3").counters().refutations >= 1U);
      BOOST_TEST(grid.holding("m3", MemberState::alive) == 3U);
      for (const std::string observer : {"m0", "m1", "m2"}) {
        BOOST_TEST((first_seen(grid, observer, "m3", MemberState::suspect) != kNever));
        BOOST_TEST((first_seen(grid, observer, "m3", MemberState::dead) == kNever));
        BOOST_TEST(grid.member(observer).member("m3")->incarnation == grid.member("m3").incarnation());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_new_member_joins_through_one_and_all_learn_it) {
  sim::MembershipGrid grid(quick_options(14));
  grid.start_static(3, at_ms(0));
  grid.join("n", {"m1"}, TimePoint{seconds(5)});
  grid.run_until(TimePoint{seconds(12)});
  grid.check_invariants();
  BOOST_TEST(grid.member("n").joined());
  BOOST_TEST(grid.member("n").live_members() == 3U);
  BOOST_TEST(grid.holding("n", MemberState::alive) == 3U);
  // m1 knows it one round trip after the join; the others from gossip on
  // m1's (or n's) probes, within a few periods.
  BOOST_TEST((first_seen(grid, "m1", "n", MemberState::alive) == TimePoint{seconds(5)} + milliseconds(1)));
  for (const std::string observer : {"m0", "m2"}) {
    BOOST_TEST((first_seen(grid, observer, "n", MemberState::alive) < TimePoint{seconds(5)} + seconds(5)));
  }
  BOOST_TEST(grid.join_failures().empty());
}

BOOST_AUTO_TEST_CASE(a_join_through_nobody_fails_saying_whom_it_asked) {
  sim::MembershipGrid grid(quick_options(15));
  grid.start_static(2, at_ms(0));
  grid.stop("m0", at_ms(0));
  grid.join("n", {"m0"}, TimePoint{seconds(1)});
  grid.run_until(TimePoint{seconds(20)});
  BOOST_TEST_REQUIRE(grid.join_failures().size() == 1U);
  BOOST_TEST(grid.join_failures()[0].find("no answer from m0 at m0 (3 rounds)") != std::string::npos);
  BOOST_TEST(!grid.member("n").joined());
}

BOOST_AUTO_TEST_CASE(a_member_that_leaves_is_held_left_and_goes_when_told) {
  sim::MembershipGrid grid(quick_options(16));
  grid.start_static(4, at_ms(0));
  grid.leave("m1", TimePoint{seconds(5)});
  // Its leave is sent 4 x ceil(log10 5) = 4 times; it keeps answering for 5 periods.
  grid.run_until(TimePoint{milliseconds(9'990)});
  BOOST_TEST(grid.running("m1"));
  grid.run_until(TimePoint{milliseconds(10'010)});
  BOOST_TEST(!grid.running("m1"));
  grid.run_until(TimePoint{seconds(30)});
  grid.check_invariants();
  BOOST_TEST(grid.holding("m1", MemberState::left) == 3U);
  for (const std::string observer : {"m0", "m2", "m3"}) {
    BOOST_TEST((first_seen(grid, observer, "m1", MemberState::dead) == kNever));
  }
}

BOOST_AUTO_TEST_CASE(a_partition_heals_and_every_member_is_alive_again) {
  sim::MembershipGrid grid(quick_options(17));
  grid.start_static(4, at_ms(0));
  grid.partition({{"m0", "m1"}, {"m2", "m3"}}, TimePoint{seconds(5)});
  grid.run_until(TimePoint{seconds(59)});
  // Each half holds the other dead.
  BOOST_TEST(grid.holding("m2", MemberState::dead) == 2U);
  BOOST_TEST(grid.holding("m0", MemberState::dead) == 2U);
  grid.partition({}, TimePoint{seconds(60)});
  // Within two sync intervals (10 s each) and a few periods, all alive.
  grid.run_until(TimePoint{seconds(90)});
  grid.check_invariants();
  // A whole view from the other half counts its "dead" as suspicions: no
  // member ever held its own half's members dead.
  BOOST_TEST((first_seen(grid, "m0", "m1", MemberState::dead) == kNever));
  BOOST_TEST((first_seen(grid, "m1", "m0", MemberState::dead) == kNever));
  BOOST_TEST((first_seen(grid, "m2", "m3", MemberState::dead) == kNever));
  BOOST_TEST((first_seen(grid, "m3", "m2", MemberState::dead) == kNever));
  for (const std::string name : {"m0", "m1", "m2", "m3"}) {
    BOOST_TEST(grid.holding(name, MemberState::alive) == 3U,
               name << " alive at " << grid.holding(name, MemberState::alive));
    BOOST_TEST(grid.member(name).live_members() == 3U);
  }
}

BOOST_AUTO_TEST_CASE(five_percent_loss_kills_nobody) {
  sim::MembershipGridOptions options = quick_options(18);
  options.loss = 0.05;
  options.jitter = milliseconds(5);
  sim::MembershipGrid grid(options);
  const auto names = grid.start_static(20, at_ms(0));
  grid.run_until(TimePoint{seconds(300)});
  grid.check_invariants();
  for (const auto& name : names) {
    BOOST_TEST(grid.holding(name, MemberState::alive) == 19U);
    BOOST_TEST((first_seen(grid, "m0", name, MemberState::dead) == kNever));
  }
  BOOST_TEST(grid.lost() > 0U);
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_run) {
  const auto run = [] {
    sim::MembershipGridOptions options = quick_options(19);
    options.loss = 0.1;
    sim::MembershipGrid grid(options);
    grid.start_static(10, at_ms(0));
    grid.stop("m3", TimePoint{seconds(20)});
    grid.run_until(TimePoint{seconds(60)});
    std::vector<std::tuple<std::int64_t, std::string, std::string, int>> seen;
    for (const auto& change : grid.changes()) {
      seen.emplace_back(change.at.time_since_epoch().count(), change.observer, change.change.member,
                        static_cast<int>(change.change.after));
    }
    return std::pair{seen, grid.delivered()};
  };
  BOOST_TEST((run() == run()));
}

BOOST_AUTO_TEST_SUITE_END()
