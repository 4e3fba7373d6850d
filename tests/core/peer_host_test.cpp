// PeerHost, the one host of a peer both drivers use: job numbering, the
// check of offered ids, persist before send, and partners' links turned into
// PeerState -- each by hand, through an environment that writes down what it
// was asked to do, in order.
#include <boost/test/unit_test.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "peer/core/p2p/peer_host.hpp"
#include "peer/model/ids.hpp"
#include "tests/core/peer_outputs.hpp"
#include "tests/support/fixed_network.hpp"

using namespace gridpeer;
using gridpeer::testing::Said;

namespace {

TimePoint at(std::int64_t s) {
  return TimePoint{seconds(s)};
}

Job job(int cpus, std::int64_t run_s) {
  return Job{999, 7, cpus, at(123), seconds(run_s), seconds(run_s), 0, 0};
}

/// Writes down each call as the words of peer_outputs.hpp ("persist:N" for
/// a persist of N entries and results); throws in persist when asked to.
struct Recorder final : PeerEnvironment {
  Said calls;
  std::vector<ServerIndex> sent_to;  ///< each message's destination, in order
  std::vector<JobEnded> ends;
  bool fail_persist = false;
  void persist(std::span<const Persist* const> kept, std::span<const JobEnded* const> ended) override {
    calls.push_back("persist:" + std::to_string(kept.size() + ended.size()));
    if (fail_persist) throw std::runtime_error("disk full");
  }
  void send(ServerIndex to, const protocol::Message& message) override {
    sent_to.push_back(to);
    for (auto& word : testing::said_of(SchedulerOutput{SendMessage{to, message}})) calls.push_back(word);
  }
  void stage(const DataTransfer& transfer) override {
    for (auto& word : testing::said_of(SchedulerOutput{StartTransfer{transfer}})) calls.push_back(word);
  }
  void ended(const JobEnded& end) override {
    ends.push_back(end);
    for (auto& word : testing::said_of(SchedulerOutput{end})) calls.push_back(word);
  }
  Said take() {
    Said out;
    out.swap(calls);
    return out;
  }
};

GridConfig config(GridAlgorithm algorithm, bool journaled = false) {
  GridConfig c;
  c.algorithm = algorithm;
  c.parameters.phi = seconds(10);
  c.parameters.handoff_timeout = seconds(10);
  c.local_policy = {LocalPolicy::easy, 0};
  c.journaled = journaled;
  return c;
}

PeerHost::Setup setup(ServerIndex id, GridConfig c, std::uint64_t incarnation = 1) {
  PeerHost::Setup s;
  s.id = id;
  s.server = ServerSpec{"A", 4, 1, 1000, 0};
  s.config = std::make_shared<const GridConfig>(c);
  s.partners = {1};
  s.incarnation = incarnation;
  s.peer_lost_after = seconds(30);
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(peer_host)

BOOST_AUTO_TEST_CASE(jobs_are_numbered_by_origin_incarnation_and_counter) {
  const testing::FixedNetwork network;
  PeerHost host(setup(2, config(GridAlgorithm::local), 3), network, at(0));
  Recorder env;
  const auto first = host.submit(job(1, 60), at(5));
  const auto second = host.submit(job(1, 60), at(6));
  BOOST_TEST(first.accepted);
  // 2 << 40 | 3 << 24 | 1, then the counter's 2.
  BOOST_TEST(first.id == (JobId{2} << 40 | JobId{3} << 24 | 1U));
  BOOST_TEST(second.id == first.id + 1);
  BOOST_TEST(host.accepted_jobs() == 2U);
  host.advance(at(100));
  host.settle(env);
  BOOST_REQUIRE(env.ends.size() == 2U);
  // The record is the job as this peer numbered and stamped it: origin 2, submitted at 5.
  BOOST_TEST(env.ends[0].record.id == first.id);
  BOOST_TEST(env.ends[0].record.origin == 2U);
  BOOST_TEST((env.ends[0].record.submit == at(5)));
  BOOST_TEST((env.ends[0].record.end == at(65)));
  host.set_draining(true);
  const auto refused = host.submit(job(1, 60), at(101));
  BOOST_TEST(!refused.accepted);
  BOOST_TEST(refused.refusal == "A is draining; submit elsewhere");
  BOOST_TEST(host.accepted_jobs() == 2U);
}

BOOST_AUTO_TEST_CASE(an_offer_whose_id_names_another_origin_is_refused_before_the_core) {
  const testing::FixedNetwork network;
  PeerHost host(setup(0, config(GridAlgorithm::sender)), network, at(0));
  Recorder env;
  Job forged = job(1, 60);
  forged.id = job_id_of(2, 5);  // origin 2's range, offered by 1
  forged.origin = 1;
  host.on_message(1, protocol::JobOffer{forged, 1000, 1}, at(1));
  host.settle(env);
  BOOST_TEST(env.take() == Said{"reject#1:other"}, boost::test_tools::per_element());
  BOOST_TEST(host.open_handoffs() == 0U);
  BOOST_TEST(host.counters().refused_transfers == 0U);  // the core never saw it
  Job fair = forged;
  fair.id = job_id_of(1, 5);
  host.on_message(1, protocol::JobOffer{fair, 1000, 1}, at(2));
  host.settle(env);
  BOOST_TEST(env.take() == Said{"accept#1"}, boost::test_tools::per_element());
  BOOST_TEST(host.open_handoffs() == 1U);
}

BOOST_AUTO_TEST_CASE(what_a_batch_keeps_is_durable_before_any_of_it_is_sent) {
  const testing::FixedNetwork network;
  PeerHost host(setup(0, config(GridAlgorithm::sender, true)), network, at(0));
  host.link_up(1, 7, true, at(0));
  Recorder env;
  host.submit(job(4, 100), at(0));  // runs here at once
  host.submit(job(4, 100), at(0));  // would wait 100 s: the partner is asked
  host.settle(env);
  BOOST_TEST(env.take() == (Said{"persist:2", "query"}), boost::test_tools::per_element());
  // A persist that fails: nothing of its batch is carried out.
  Recorder failing;
  failing.fail_persist = true;
  host.submit(job(4, 100), at(1));
  BOOST_CHECK_THROW(host.settle(failing), std::runtime_error);
  BOOST_TEST(failing.take() == Said{"persist:1"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(links_become_peer_states) {
  // A (server 0) runs J1 and commits J2 to partner 1; 1's link then drops,
  // comes back with the same boot id (only the link dropped), drops, comes
  // back with a new one and no journal (J2 is taken back and decided anew
  // while 1 still counts as down: it waits here, behind J1), drops, and stays
  // away past peer_lost_after.
  const testing::FixedNetwork network;
  PeerHost host(setup(0, config(GridAlgorithm::sender)), network, at(0));
  Recorder env;
  BOOST_TEST((host.link_up(1, 7, false, at(0)) == LinkUp::connected));
  const JobId j1 = host.submit(job(4, 100), at(0)).id;
  const JobId j2 = host.submit(job(4, 100), at(0)).id;
  host.on_message(1, protocol::AttReply{0, j2, seconds(50), {}, 0.0}, at(0));
  host.on_message(1, protocol::JobAccept{j2, 1, false}, at(1));
  host.on_message(1, protocol::JobAccept{j2, 1, true}, at(1));  // it hosts J2
  host.settle(env);
  BOOST_TEST(env.take() == (Said{"query", "offer#1", "commit#1", "input#1"}), boost::test_tools::per_element());
  static_cast<void>(j1);
  host.link_down(1, "reset", at(2));
  BOOST_TEST((host.next_deadline() == at(32)));  // the link's lapse comes first
  BOOST_TEST((host.link_up(1, 7, false, at(3)) == LinkUp::connected));
  host.settle(env);
  BOOST_TEST(env.take().empty());  // committed, and 1 still has it
  host.link_down(1, "reset", at(4));
  BOOST_TEST((host.link_up(1, 9, false, at(5)) == LinkUp::restarted_empty));
  host.settle(env);
  BOOST_TEST(env.take().empty());
  BOOST_TEST(host.load().local_queue == 1U);  // J2, decided anew: here
  BOOST_TEST(host.open_handoffs() == 0U);
  // Down again, now past peer_lost_after: 1 is given up (nothing of ours is
  // committed to it any more, so nothing ends), and its return is a plain one.
  host.link_down(1, "silent", at(6));
  host.advance(at(36));
  host.settle(env);
  BOOST_TEST((host.link_up(1, 11, false, at(40)) == LinkUp::connected));
}

BOOST_AUTO_TEST_CASE(a_member_that_joins_is_asked_once_its_link_is_up) {
  // A (server 0) starts with partner 1 only. Server 2 joins the running grid:
  // a partner at once, but out of reach until its link is up (the driver says
  // so first) -- a job submitted now asks 1 alone. Once 2's link is up, the
  // next job asks both (one query to each).
  const testing::FixedNetwork network;
  PeerHost host(setup(0, config(GridAlgorithm::sender)), network, at(0));
  Recorder env;
  host.link_up(1, 7, false, at(0));
  host.on_peer(2, PeerState::unreachable, "not connected yet", at(0));
  host.set_partners({2, 1, 2, 0});  // heard of twice: one partner; itself: never its own
  BOOST_TEST(host.partners() == (std::vector<ServerIndex>{1, 2}), boost::test_tools::per_element());
  host.submit(job(4, 100), at(0));  // runs here
  host.submit(job(4, 100), at(1));  // waits: A asks its partners in reach
  host.settle(env);
  BOOST_TEST(env.take() == Said{"query"}, boost::test_tools::per_element());
  host.link_up(2, 9, false, at(2));
  host.submit(job(4, 100), at(3));
  host.settle(env);
  BOOST_TEST(env.take() == (Said{"query", "query"}), boost::test_tools::per_element());
  host.check_invariants();
}

BOOST_AUTO_TEST_CASE(a_partner_set_that_changes_keeps_what_is_open_with_the_old_one) {
  // A asks 1 and 2 about J2 (J1 runs here). Its set then becomes {2, 3} (3
  // never said to be out of reach, so in reach); 1's reply to the open query
  // still counts, and with 2's it concludes the query: J2 is offered to 1,
  // the better of the two. The next job asks 2 and 3 only.
  const testing::FixedNetwork network;
  PeerHost host(setup(0, config(GridAlgorithm::sender)), network, at(0));
  Recorder env;
  host.link_up(1, 7, false, at(0));
  host.link_up(2, 8, false, at(0));
  host.set_partners({1, 2});
  host.submit(job(4, 100), at(0));
  const JobId j2 = host.submit(job(4, 100), at(0)).id;
  host.settle(env);
  BOOST_TEST(env.take() == (Said{"query", "query"}), boost::test_tools::per_element());
  host.set_partners({2, 3});
  host.on_message(1, protocol::AttReply{0, j2, seconds(50), {}, 0.0}, at(1));
  host.on_message(2, protocol::AttReply{0, j2, seconds(90), {}, 0.0}, at(1));
  env.sent_to.clear();
  host.settle(env);
  BOOST_TEST(env.take() == Said{"offer#1"}, boost::test_tools::per_element());
  BOOST_TEST(env.sent_to == std::vector<ServerIndex>{1}, boost::test_tools::per_element());
  env.sent_to.clear();
  host.submit(job(4, 100), at(2));
  host.settle(env);
  BOOST_TEST(env.take() == (Said{"query", "query"}), boost::test_tools::per_element());
  BOOST_TEST(env.sent_to == (std::vector<ServerIndex>{2, 3}), boost::test_tools::per_element());
  host.check_invariants();
}

BOOST_AUTO_TEST_CASE(each_link_down_counts_once_until_it_returns_or_lapses) {
  // Partners 1 and 2 drop at 2 s and 4 s (1 said twice: the first time
  // stands); peer_lost_after is 30 s. Their lapses, 32 s then 34 s, are the
  // host's deadlines while they are away; 1 returns at 10 s, 2 lapses at 34 s,
  // and the host's deadline is its peer's own again. A link down and up again
  // later still lapses at its new time.
  const testing::FixedNetwork network;
  PeerHost host(setup(0, config(GridAlgorithm::sender)), network, at(0));
  host.link_up(1, 7, false, at(0));
  host.link_up(2, 8, false, at(0));
  const TimePoint own = host.next_deadline();
  BOOST_TEST((own > at(100)));
  host.link_down(1, "reset", at(2));
  host.link_down(1, "reset again", at(3));
  host.link_down(2, "silent", at(4));
  BOOST_TEST((host.next_deadline() == at(32)));
  BOOST_TEST((host.link_up(1, 7, false, at(10)) == LinkUp::connected));
  BOOST_TEST((host.next_deadline() == at(34)));
  host.advance(at(34));
  BOOST_TEST((host.next_deadline() == own));
  host.link_down(1, "reset", at(40));
  BOOST_TEST((host.next_deadline() == at(70)));
  host.advance(at(70));
  BOOST_TEST((host.next_deadline() == own));
  BOOST_TEST((host.link_up(1, 7, false, at(80)) == LinkUp::connected));  // given up: a plain return
}

BOOST_AUTO_TEST_CASE(a_committed_job_ends_lost_once_its_executor_stays_away) {
  const testing::FixedNetwork network;
  PeerHost host(setup(0, config(GridAlgorithm::sender)), network, at(0));
  Recorder env;
  host.link_up(1, 7, false, at(0));
  host.submit(job(4, 100), at(0));
  const JobId j2 = host.submit(job(4, 100), at(0)).id;
  host.on_message(1, protocol::AttReply{0, j2, seconds(50), {}, 0.0}, at(0));
  host.on_message(1, protocol::JobAccept{j2, 1, false}, at(1));
  host.on_message(1, protocol::JobAccept{j2, 1, true}, at(1));
  host.settle(env);
  env.take();
  host.link_down(1, "connection reset", at(2));
  host.advance(at(31));
  host.settle(env);
  BOOST_TEST(env.take().empty());  // 29 s away: still its own
  host.advance(at(32));
  host.settle(env);
  BOOST_REQUIRE(env.ends.size() == 1U);
  BOOST_TEST(env.ends[0].record.id == j2);
  BOOST_TEST((env.ends[0].outcome == JobOutcome::lost));
  BOOST_TEST(env.ends[0].reason.find("connection reset") != std::string::npos, env.ends[0].reason);
}

BOOST_AUTO_TEST_SUITE_END()
