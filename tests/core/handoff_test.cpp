// The hand-off state machines (docs/fault-injection.md), driven message by
// message on one GridPeer: what it answers, when, and what it never does
// (run a job twice, end it twice, lose it without a reason).
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "peer/core/p2p/grid_peer.hpp"
#include "peer/core/policy/estimate.hpp"
#include "tests/core/peer_outputs.hpp"
#include "tests/support/fixed_network.hpp"

using namespace gridpeer;
using gridpeer::testing::Said;
using gridpeer::testing::said;

namespace {

// phi 10 s, hand-off time-out 10 s; A (server 0) and partner 1, 4 CPUs each.
GridConfig sender_config() {
  GridConfig c;
  c.algorithm = GridAlgorithm::sender;
  c.parameters.phi = seconds(10);
  c.parameters.handoff_timeout = seconds(10);
  c.local_policy = {LocalPolicy::easy, 0};
  return c;
}

Job job(JobId id, ServerIndex origin, int cpus, std::int64_t run_s, std::uint64_t input = 0) {
  return Job{id, origin, cpus, TimePoint{}, seconds(run_s), seconds(run_s), input, 0};
}

TimePoint at(std::int64_t s) {
  return TimePoint{seconds(s)};
}

/// A transfer from partner 1 landing at server 0.
DataTransfer from_partner(DataTransfer::Kind kind, JobId job) {
  DataTransfer t;
  t.kind = kind;
  t.job = job;
  t.from = 1;
  t.to = 0;
  return t;
}

/// A with J0 running (4 CPUs, 100 s) and J1 (4 CPUs, 100 s) offered to
/// partner 1 (attempt 1) at t = 0, after 1 answered ATT 100 s.
struct Origin {
  const testing::FixedNetwork network;
  GridPeer peer{0, ServerSpec{"A", 4, 1, 1000, 0}, sender_config(), {1}, network};
  Origin() {
    peer.submit(job(1, 0, 4, 100), at(0));
    peer.submit(job(2, 0, 4, 100), at(0));
    BOOST_TEST(said(peer) == Said{"query"}, boost::test_tools::per_element());
    peer.on_message(1, protocol::AttReply{0, 2, seconds(100), {}, 0.0}, at(0));
    BOOST_TEST(said(peer) == Said{"offer#1"}, boost::test_tools::per_element());
  }
  DataTransfer output(std::int64_t at_s) const {
    DataTransfer t = from_partner(DataTransfer::Kind::output, 2);
    t.start = at(at_s - 100);
    t.finish = at(at_s);
    return t;
  }
};

/// B (server 0 here) receiving job 7 from its origin, peer 1.
struct Executor {
  const testing::FixedNetwork network;
  GridPeer peer{0, ServerSpec{"B", 4, 1, 1000, 0}, sender_config(), {1}, network};
  Job seven = job(7, 1, 2, 50);
  DataTransfer input(std::uint32_t attempt) const {
    DataTransfer t = from_partner(DataTransfer::Kind::input, 7);
    t.attempt = attempt;
    return t;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(handoff)

// A asks partners 1 and 2 about J2 (J1 holds its 4 CPUs for 100 s). 1's
// reply (ATT 100 s) comes twice: heard once, so A still waits for 2, whose
// reply (ATT 10 s) wins. Counted twice, it would have decided on 1 alone.
BOOST_AUTO_TEST_CASE(a_reply_heard_twice_counts_once) {
  const testing::FixedNetwork network;
  GridPeer peer{0, ServerSpec{"A", 4, 1, 1000, 0}, sender_config(), {1, 2}, network};
  peer.submit(job(1, 0, 4, 100), at(0));
  peer.submit(job(2, 0, 4, 100), at(0));
  BOOST_TEST(said(peer) == (Said{"query", "query"}), boost::test_tools::per_element());
  peer.on_message(1, protocol::AttReply{0, 2, seconds(100), {}, 0.0}, at(0));
  peer.on_message(1, protocol::AttReply{0, 2, seconds(100), {}, 0.0}, at(0));
  BOOST_TEST(said(peer).empty());
  BOOST_TEST(peer.counters().late_replies == 1U);
  peer.on_message(2, protocol::AttReply{0, 2, seconds(10), {}, 0.0}, at(0));
  const Said offered = said(peer);
  BOOST_TEST(offered == Said{"offer#1"}, boost::test_tools::per_element());
  BOOST_TEST(peer.counters().query_timeouts == 0U);
}

BOOST_AUTO_TEST_CASE(origin_commits_once_retries_until_confirmed_and_ends_once) {
  Origin o;
  o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(1));
  BOOST_TEST(said(o.peer) == (Said{"commit#1", "input#1"}), boost::test_tools::per_element());
  // A repeated accept: our commit may be lost; it goes again, the input not.
  o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(2));
  BOOST_TEST(said(o.peer) == Said{"commit#1"}, boost::test_tools::per_element());
  BOOST_TEST(o.peer.counters().commit_retries == 1U);
  // Unconfirmed, the commit goes again after the time-out, doubling: the
  // second send was at 2 s with 20 s to wait (sent twice before it).
  o.peer.advance(at(21));
  BOOST_TEST(said(o.peer).empty());
  o.peer.advance(at(22));
  BOOST_TEST(said(o.peer) == Said{"commit#1"}, boost::test_tools::per_element());
  o.peer.on_message(1, protocol::JobAccept{2, 1, true}, at(23));  // confirmed
  o.peer.advance(at(10'000));
  BOOST_TEST(said(o.peer) == Said{"done"}, boost::test_tools::per_element());  // J1, run at home
  // Once confirmed, a reject cannot be about this job; the output ends it, once.
  o.peer.on_message(1, protocol::JobReject{2, 1, protocol::RejectReason::unknown_offer}, at(10'001));
  o.peer.on_transfer_done(o.output(10'002), at(10'002));
  o.peer.on_transfer_done(o.output(10'002), at(10'003));
  BOOST_TEST(said(o.peer) == Said{"done"}, boost::test_tools::per_element());
  BOOST_TEST(o.peer.counters().stale_messages == 2U);
  BOOST_TEST(o.peer.open_handoffs() == 0U);
}

BOOST_AUTO_TEST_CASE(an_offer_not_accepted_in_time_is_taken_back_and_its_late_accept_ignored) {
  Origin o;
  o.peer.advance(at(10));  // the time-out: decided anew (a new query)
  BOOST_TEST(said(o.peer) == Said{"query"}, boost::test_tools::per_element());
  BOOST_TEST(o.peer.counters().handoff_timeouts == 1U);
  o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(11));  // attempt 1: too late
  BOOST_TEST(said(o.peer).empty());
  o.peer.on_message(1, protocol::AttReply{1, 2, seconds(100), {}, 0.0}, at(11));
  BOOST_TEST(said(o.peer) == Said{"offer#2"}, boost::test_tools::per_element());
  o.peer.on_message(1, protocol::JobAccept{2, 2, false}, at(12));
  BOOST_TEST(said(o.peer) == (Said{"commit#2", "input#2"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_commit_the_executor_let_lapse_brings_the_job_back) {
  // The executor forgot the offer before our commit came: it rejects the
  // commit, so it never ran the job and never will; the job is ours again.
  Origin o;
  o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(1));
  BOOST_TEST(said(o.peer) == (Said{"commit#1", "input#1"}), boost::test_tools::per_element());
  o.peer.on_message(1, protocol::JobReject{2, 1, protocol::RejectReason::unknown_offer}, at(2));
  BOOST_TEST(said(o.peer) == Said{"query"}, boost::test_tools::per_element());
  BOOST_TEST(o.peer.counters().taken_back == 1U);
}

BOOST_AUTO_TEST_CASE(a_commit_never_confirmed_is_given_up_with_its_reason) {
  Origin o;
  o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(0));
  (void)said(o.peer);
  // Sends at 0, 10, 30, 70, ... (10 s doubling): the tenth is the last.
  o.peer.advance(at(100'000));
  const Said out = said(o.peer);
  BOOST_TEST(std::count(out.begin(), out.end(), "commit#1") == kMaxCommitRetries);
  BOOST_TEST(out.back() == "lost:never confirmed the commit, sent 10 times");
  BOOST_TEST(o.peer.counters().lost == 1U);
  o.peer.on_transfer_done(o.output(100'001), at(100'001));  // a late output: the job ended already
  BOOST_TEST(said(o.peer).empty());
}

BOOST_AUTO_TEST_CASE(a_lost_peer_returns_offers_and_loses_commits_unless_it_restarted_empty) {
  {
    Origin o;  // uncommitted: back to the grid queue
    o.peer.on_peer(1, PeerState::gone, "closed", at(1));
    BOOST_TEST(o.peer.counters().taken_back == 1U);
  }
  {
    Origin o;  // committed: lost with it
    o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(1));
    (void)said(o.peer);
    o.peer.on_peer(1, PeerState::gone, "closed", at(2));
    BOOST_TEST(said(o.peer) == Said{"lost:went away holding it (closed)"}, boost::test_tools::per_element());
  }
  {
    Origin o;  // committed, but it crashed and restarted empty: it will never run it
    o.peer.on_message(1, protocol::JobAccept{2, 1, true}, at(1));
    (void)said(o.peer);
    o.peer.on_peer(1, PeerState::restarted, "crashed", at(2));
    BOOST_TEST(o.peer.counters().taken_back == 1U);
    BOOST_TEST(o.peer.counters().lost == 0U);
  }
}

BOOST_AUTO_TEST_CASE(a_dropped_connection_returns_offers_but_keeps_commits_until_given_up) {
  {
    Origin o;  // not accepted yet: back at once
    o.peer.on_peer(1, PeerState::unreachable, "closed", at(1));
    BOOST_TEST(o.peer.counters().taken_back == 1U);
  }
  Origin o;  // committed: still the executor's; its output may yet come home
  o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(1));
  (void)said(o.peer);
  o.peer.on_peer(1, PeerState::unreachable, "closed", at(2));
  BOOST_TEST(o.peer.counters().taken_back == 0U);
  BOOST_TEST(o.peer.counters().lost == 0U);
  o.peer.on_peer(1, PeerState::reachable, "back", at(149));  // back, as it was
  o.peer.on_transfer_done(o.output(150), at(150));
  const Said out = said(o.peer);
  BOOST_TEST(std::count(out.begin(), out.end(), "done") == 2);  // J1 at home, and J2 from partner 1
}

BOOST_AUTO_TEST_CASE(executor_takes_an_offer_hosts_it_once_and_answers_every_retry) {
  Executor e;
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 1}, at(0));
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 1}, at(1));  // duplicated
  BOOST_TEST(said(e.peer) == (Said{"accept#1", "accept#1"}), boost::test_tools::per_element());
  BOOST_TEST(e.peer.counters().jobs_received == 0U);  // not before the commit
  e.peer.on_transfer_done(e.input(1), at(2));         // the input stands for a late commit
  e.peer.on_message(1, protocol::JobCommit{7, 1}, at(3));
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 1}, at(4));
  BOOST_TEST(said(e.peer) == (Said{"has#1", "has#1", "has#1"}), boost::test_tools::per_element());
  BOOST_TEST(e.peer.counters().jobs_received == 1U);
  BOOST_TEST(e.peer.local().running_jobs() == 1U);  // started at 2 s, on its input
  e.peer.advance(at(52));
  const auto outputs = e.peer.take_outputs();
  BOOST_REQUIRE(outputs.size() == 1U);
  const DataTransfer& output = std::get<StartTransfer>(outputs.front()).transfer;
  BOOST_TEST((output.kind == DataTransfer::Kind::output && output.to == 1U && output.job == 7U));
  BOOST_TEST((output.start == at(2) && output.finish == at(52)));  // as it ran here, for the origin's record
  BOOST_TEST(e.peer.remembered_handoffs() == 1U);
  // Ran already: every retry is answered, nothing runs again, and no output
  // goes again (a retry only crossed our answer).
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 1}, at(60));
  e.peer.on_message(1, protocol::JobCommit{7, 1}, at(61));
  BOOST_TEST(said(e.peer) == (Said{"has#1", "has#1"}), boost::test_tools::per_element());
  BOOST_TEST(e.peer.counters().jobs_received == 1U);
  // The memory of it lasts handoff_memory (24 h here) from the run, then goes:
  // a long-running peer does not grow with every job it ran.
  e.peer.advance(at(52 + 24 * 3600));
  BOOST_TEST(e.peer.remembered_handoffs() == 1U);
  e.peer.advance(at(53 + 24 * 3600));
  BOOST_TEST(e.peer.remembered_handoffs() == 0U);
}

BOOST_AUTO_TEST_CASE(executor_lets_an_uncommitted_offer_lapse_and_never_revives_it) {
  Executor e;
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 1}, at(0));
  BOOST_TEST(said(e.peer) == Said{"accept#1"}, boost::test_tools::per_element());
  e.peer.advance(at(20));  // twice the time-out: forgotten
  BOOST_TEST(e.peer.open_handoffs() == 0U);
  e.peer.on_message(1, protocol::JobCommit{7, 1}, at(21));             // too late: rejected, not hosted
  e.peer.on_transfer_done(e.input(1), at(22));                         // its input: dropped
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 1}, at(23));  // a duplicate of attempt 1: silence
  BOOST_TEST(said(e.peer) == Said{"reject#1:unknown"}, boost::test_tools::per_element());
  BOOST_TEST(e.peer.counters().stray_inputs == 1U);
  BOOST_TEST(e.peer.counters().jobs_received == 0U);
  // A new attempt is a new offer; a stale input of attempt 1 does not commit it.
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 2}, at(30));
  e.peer.on_transfer_done(e.input(1), at(31));
  BOOST_TEST(said(e.peer) == Said{"accept#2"}, boost::test_tools::per_element());
  BOOST_TEST(e.peer.counters().jobs_received == 0U);
  e.peer.on_message(1, protocol::JobCommit{7, 2}, at(32));
  BOOST_TEST(said(e.peer) == Said{"has#2"}, boost::test_tools::per_element());
  BOOST_TEST(e.peer.counters().jobs_received == 1U);
}

BOOST_AUTO_TEST_CASE(executor_refuses_what_it_cannot_or_may_not_take) {
  Executor e;
  e.peer.on_message(1, protocol::JobOffer{job(8, 1, 5, 10), 1000, 1}, at(0));  // 5 CPUs on a 4-CPU server
  e.peer.set_draining(true);
  e.peer.on_message(1, protocol::JobOffer{e.seven, 1000, 1}, at(0));
  e.peer.on_message(1, protocol::JobOffer{job(9, 0, 1, 10), 1000, 1}, at(0));  // claims to be ours
  BOOST_TEST(said(e.peer) == (Said{"reject#1:other", "reject#1:other", "reject#1:other"}),
             boost::test_tools::per_element());
  BOOST_TEST(e.peer.counters().refused_transfers == 3U);
  BOOST_TEST(e.peer.open_handoffs() == 0U);
}

BOOST_AUTO_TEST_CASE(a_peer_refuses_hand_offs_it_cannot_trust) {
  // Found by tests/fuzz/peer_fuzz: a second hand-off under an id already here
  // broke the local scheduler's bookkeeping. Now only the job's origin may
  // offer it, a repeat is answered from what the peer has, and an own
  // submission under a used id is rejected.
  const testing::FixedNetwork network;
  GridPeer peer(0, ServerSpec{"A", 4, 1, 1000, 0}, sender_config(), {1, 2}, network);
  const Job from_b = job(5, 1, 1, 100);
  peer.on_message(1, protocol::JobOffer{from_b, 1000, 1}, TimePoint{});
  peer.on_message(1, protocol::JobCommit{5, 1}, TimePoint{});
  BOOST_TEST(peer.counters().jobs_received == 1U);
  peer.on_message(1, protocol::JobOffer{from_b, 1000, 1}, TimePoint{});             // the same again
  peer.on_message(2, protocol::JobOffer{job(6, 1, 1, 100), 1000, 1}, TimePoint{});  // not its origin
  BOOST_TEST(peer.counters().jobs_received == 1U);
  BOOST_TEST(peer.counters().refused_transfers == 1U);
  peer.submit(job(5, 0, 1, 100), TimePoint{});  // an own job under the hosted id
  const auto outputs = peer.take_outputs();
  BOOST_TEST(std::count_if(outputs.begin(), outputs.end(), [](const SchedulerOutput& o) {
               const auto* ended = std::get_if<JobEnded>(&o);
               return ended != nullptr && ended->outcome == JobOutcome::rejected;
             }) == 1);
  // Answers: accept, confirm (commit), confirm (repeat), reject (not origin).
  std::vector<std::string> answers;
  for (const SchedulerOutput& o : outputs) {
    const auto* send = std::get_if<SendMessage>(&o);
    if (send == nullptr) continue;
    if (const auto* a = std::get_if<protocol::JobAccept>(&send->message))
      answers.push_back(a->hosting ? "has" : "takes");
    if (const auto* r = std::get_if<protocol::JobReject>(&send->message)) {
      answers.push_back(std::string("rejects: ") + protocol::describe(r->reason));
    }
  }
  const std::vector<std::string> expected{"takes", "has", "has",
                                          "rejects: offered by a peer that is not the job's origin"};
  BOOST_TEST(answers == expected, boost::test_tools::per_element());
}

// A draining peer that still answered ATT queries with its real
// turnaround drew offer after offer it then refused -- 94,000 offers for 4
// jobs. It now answers that it cannot take the job, and never volunteers.
BOOST_AUTO_TEST_CASE(a_draining_peer_answers_it_cannot_take_work_and_never_volunteers) {
  Executor e;
  e.peer.set_draining(true);
  e.peer.on_message(1, protocol::AttQuery{4, requirements_of(e.seven, 1000)}, at(0));
  const std::vector<SchedulerOutput> out = e.peer.take_outputs();
  BOOST_TEST_REQUIRE(out.size() == 1U);
  const auto& reply = std::get<protocol::AttReply>(std::get<SendMessage>(out.front()).message);
  BOOST_TEST((reply.att == kForever));

  // Its origin, asking only it, runs the job at home: no offer at all.
  const testing::FixedNetwork network;
  GridPeer origin{0, ServerSpec{"A", 4, 1, 1000, 0}, sender_config(), {1}, network};
  origin.submit(job(1, 0, 4, 100), at(0));
  origin.submit(job(2, 0, 4, 100), at(0));
  BOOST_TEST(said(origin) == Said{"query"}, boost::test_tools::per_element());
  protocol::AttReply no{0, 2, kForever, kForever, 0.0};
  origin.on_message(1, no, at(0));
  BOOST_TEST(said(origin).empty());
  BOOST_TEST(origin.local().queued_jobs() + origin.local().running_jobs() == 2U);

  GridConfig receiver = sender_config();
  receiver.algorithm = GridAlgorithm::receiver;
  GridPeer idle{0, ServerSpec{"B", 4, 1, 1000, 0}, receiver, {1}, network};
  idle.set_draining(true);
  idle.advance(at(600));
  BOOST_TEST(idle.counters().volunteers_sent == 0U);
}

BOOST_AUTO_TEST_CASE(a_partner_that_refused_a_job_is_not_asked_about_it_again_for_a_while) {
  // A (4 CPUs) with partners 1 and 2. J1 runs at home; J2 (4 CPUs, 100 s)
  // would wait 100 s >= phi, so both partners are asked. Before this rule a
  // refusing partner was asked again at once, and offered again, for ever.
  const testing::FixedNetwork network;
  GridPeer origin{0, ServerSpec{"A", 4, 1, 1000, 0}, sender_config(), {1, 2}, network};
  const auto sent_to = [&origin](const char* kind) {
    BOOST_CHECK_NO_THROW(origin.check_invariants());
    std::vector<ServerIndex> to;
    for (const SchedulerOutput& o : origin.take_outputs()) {
      const auto* send = std::get_if<SendMessage>(&o);
      if (send == nullptr) continue;
      const bool query = std::holds_alternative<protocol::AttQuery>(send->message);
      const bool offer = std::holds_alternative<protocol::JobOffer>(send->message);
      if ((std::string(kind) == "query" && query) || (std::string(kind) == "offer" && offer)) to.push_back(send->to);
    }
    return to;
  };
  using To = std::vector<ServerIndex>;
  origin.submit(job(1, 0, 4, 100), at(0));
  origin.submit(job(2, 0, 4, 100), at(0));
  BOOST_TEST(sent_to("query") == (To{1, 2}), boost::test_tools::per_element());
  // ATT here: 100 s of waiting + 100 s; partner 1 says 50 s, partner 2 60 s.
  origin.on_message(1, protocol::AttReply{0, 2, seconds(50), {}, 0.0}, at(0));
  origin.on_message(2, protocol::AttReply{0, 2, seconds(60), {}, 0.0}, at(0));
  BOOST_TEST(sent_to("offer") == To{1}, boost::test_tools::per_element());
  // 1 refuses (say it drained since): only 2 is asked, and offered the job.
  origin.on_message(1, protocol::JobReject{2, 1, protocol::RejectReason::draining}, at(1));
  BOOST_TEST(sent_to("query") == To{2}, boost::test_tools::per_element());
  origin.on_message(2, protocol::AttReply{1, 2, seconds(60), {}, 0.0}, at(1));
  BOOST_TEST(sent_to("offer") == To{2}, boost::test_tools::per_element());
  // 2 refuses too: nobody is left to ask, so J2 runs at home; two offers in all.
  origin.on_message(2, protocol::JobReject{2, 2, protocol::RejectReason::id_in_use}, at(2));
  BOOST_TEST(sent_to("query").empty());
  BOOST_TEST(origin.local().queued_jobs() + origin.local().running_jobs() == 2U);
  BOOST_TEST(origin.counters().jobs_sent == 2U);
}

BOOST_AUTO_TEST_CASE(the_bar_doubles_with_each_refusal_up_to_its_cap) {
  // Base 10 s, cap 40 s: barred until 10; refused again at 10, until 30; at
  // 30, until 70; at 70, until 110 (the cap: 40 s, not 80).
  RefusalBackoff bars(seconds(10), seconds(40));
  bars.refused(5, 1, at(0));
  BOOST_TEST(bars.barred(5, 1, at(9)));
  BOOST_TEST(!bars.barred(5, 1, at(10)));
  BOOST_TEST(!bars.barred(5, 2, at(0)));  // another partner
  BOOST_TEST(!bars.barred(6, 1, at(0)));  // another job
  bars.refused(5, 1, at(10));
  BOOST_TEST(bars.barred(5, 1, at(29)));
  BOOST_TEST(!bars.barred(5, 1, at(30)));
  bars.refused(5, 1, at(30));
  BOOST_TEST(bars.barred(5, 1, at(69)));
  BOOST_TEST(!bars.barred(5, 1, at(70)));
  bars.refused(5, 1, at(70));
  BOOST_TEST(bars.barred(5, 1, at(109)));
  BOOST_TEST(!bars.barred(5, 1, at(110)));
  BOOST_TEST(bars.allowed(5, {0, 1, 2}, at(100)) == (std::vector<ServerIndex>{0, 2}), boost::test_tools::per_element());
  bars.forget(5);
  BOOST_TEST(bars.jobs().empty());
  BOOST_TEST(!bars.barred(5, 1, at(100)));
  // A lapse (first_is_free): the first bars nothing, the second 10 s, the third 20 s.
  bars.refused(6, 1, at(0), true);
  BOOST_TEST(!bars.barred(6, 1, at(0)));
  bars.refused(6, 1, at(1), true);
  BOOST_TEST(bars.barred(6, 1, at(10)));
  BOOST_TEST(!bars.barred(6, 1, at(11)));
  bars.refused(6, 1, at(11), true);
  BOOST_TEST(bars.barred(6, 1, at(30)));
  BOOST_TEST(!bars.barred(6, 1, at(31)));
}

BOOST_AUTO_TEST_SUITE_END()

// What a journaled peer asks its driver to keep, in which order
// against the messages it guards, and how it takes it up again.
BOOST_AUTO_TEST_SUITE(durability)

namespace {

GridConfig journaled_config() {
  GridConfig c = sender_config();
  c.journaled = true;
  return c;
}

using Entries = std::vector<std::pair<DurableKey, DurableJob>>;

DurableJob entry(DurableJob::Phase phase, const Job& j) {
  DurableJob e;
  e.phase = phase;
  e.job = j;
  return e;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_origin_keeps_each_job_before_it_promises_anything_about_it) {
  const testing::FixedNetwork network;
  GridPeer a{0, ServerSpec{"A", 4, 1, 1000, 0}, journaled_config(), {1}, network};
  a.submit(job(1, 0, 4, 100), at(0));  // runs here at once (AWT 0 < phi)
  a.submit(job(2, 0, 4, 100), at(0));  // would wait 100 s: partner 1 is asked
  BOOST_TEST(said(a) == (Said{"keep:own:accepted", "keep:own:accepted", "query"}), boost::test_tools::per_element());
  a.on_message(1, protocol::AttReply{0, 2, seconds(100), {}, 0.0}, at(0));
  BOOST_TEST(said(a) == Said{"offer#1"}, boost::test_tools::per_element());  // an offer promises nothing yet
  a.on_message(1, protocol::JobAccept{2, 1, false}, at(1));
  // The commit hands the job over: kept as committed before it leaves.
  BOOST_TEST(said(a) == (Said{"keep:own:committed", "commit#1", "input#1"}), boost::test_tools::per_element());
  a.on_message(1, protocol::JobAccept{2, 1, true}, at(2));
  a.advance(at(100));
  BOOST_TEST(said(a) == (Said{"forget:own", "done"}), boost::test_tools::per_element());  // J1 ended
}

BOOST_AUTO_TEST_CASE(a_restarted_origin_decides_its_jobs_again_and_asks_its_executors_again) {
  // What the journal held when A was killed at 50 s: J1 running here, J2
  // committed to partner 1 under attempt 1. A starts again at 60 s, its
  // third start.
  const testing::FixedNetwork network;
  GridPeer a{0, ServerSpec{"A", 4, 1, 1000, 0}, journaled_config(), {1}, network, at(60)};
  DurableJob committed = entry(DurableJob::Phase::committed, job(2, 0, 4, 100));
  committed.peer = 1;
  committed.attempt = 1;
  const Entries kept{{{DurableRole::own, 1}, entry(DurableJob::Phase::accepted, job(1, 0, 4, 100))},
                     {{DurableRole::own, 2}, committed}};
  const Recovery r = a.restore(kept, 3, at(60));
  BOOST_TEST((r.requeued == 1U && r.committed == 1U && r.hosted == 0U && r.ran == 0U));
  // J2's commit goes again at once, saying it is asked again; J1 is kept
  // again (one recovery) and runs again from the start, here (AWT 0).
  BOOST_TEST(said(a) == (Said{"commit#1:again", "keep:own:accepted"}), boost::test_tools::per_element());
  BOOST_TEST(a.local().running_jobs() == 1U);
  // The executor still has J2: its input may have been lost with A, so it goes again.
  a.on_message(1, protocol::JobAccept{2, 1, true}, at(61));
  BOOST_TEST(said(a) == Said{"input#1"}, boost::test_tools::per_element());
  a.advance(at(160));
  const auto ended = a.take_outputs();
  BOOST_REQUIRE(ended.size() == 2U);
  BOOST_TEST(std::holds_alternative<Persist>(ended[0]));
  const JobRecord& j1 = std::get<JobEnded>(ended[1]).record;
  BOOST_TEST((j1.id == 1U && j1.start == at(60) && j1.finish == at(160) && j1.recoveries == 1U));
  // The output of J2 ends it, as before the crash.
  DataTransfer output = from_partner(DataTransfer::Kind::output, 2);
  output.start = at(70);
  output.finish = at(170);
  a.on_transfer_done(output, at(171));
  BOOST_TEST(said(a) == (Said{"forget:own", "done"}), boost::test_tools::per_element());
  BOOST_TEST(a.open_handoffs() == 0U);
}

BOOST_AUTO_TEST_CASE(a_restarted_origin_numbers_attempts_above_its_earlier_starts) {
  // J2 had been offered (under attempts never kept) when A died: taken up in
  // A's third start, its offers count from 3 << 16. A has 2 CPUs, J2 needs
  // 4: partner 1 is asked.
  const testing::FixedNetwork network;
  const Entries kept{{{DurableRole::own, 2}, entry(DurableJob::Phase::accepted, job(2, 0, 4, 100))}};
  GridPeer a{0, ServerSpec{"A", 2, 1, 1000, 0}, journaled_config(), {1}, network};
  a.restore(kept, 3, at(0));
  BOOST_TEST(said(a) == (Said{"keep:own:accepted", "query"}), boost::test_tools::per_element());
  a.on_message(1, protocol::AttReply{0, 2, seconds(100), {}, 0.0}, at(0));
  BOOST_TEST(said(a) == Said{"offer#" + std::to_string((3U << 16U) + 1U)}, boost::test_tools::per_element());
  // Restored only before any other input.
  GridPeer busy{0, ServerSpec{"A", 4, 1, 1000, 0}, journaled_config(), {1}, network};
  busy.submit(job(1, 0, 4, 100), at(0));
  BOOST_CHECK_THROW(busy.restore(kept, 3, at(0)), std::logic_error);
}

BOOST_AUTO_TEST_CASE(an_executor_keeps_a_job_before_it_says_hosting_and_its_output_after_it_ran) {
  const testing::FixedNetwork network;
  const Job seven = job(7, 1, 2, 50);
  GridPeer b{0, ServerSpec{"B", 4, 1, 1000, 0}, journaled_config(), {1}, network};
  b.on_message(1, protocol::JobOffer{seven, 1000, 1}, at(0));
  BOOST_TEST(said(b) == Said{"accept#1"}, boost::test_tools::per_element());
  b.on_message(1, protocol::JobCommit{7, 1}, at(1));
  BOOST_TEST(said(b) == (Said{"keep:hosted:hosting", "has#1"}), boost::test_tools::per_element());
  DataTransfer input = from_partner(DataTransfer::Kind::input, 7);
  input.attempt = 1;
  b.on_transfer_done(input, at(2));
  b.advance(at(52));
  BOOST_TEST(said(b) == (Said{"keep:hosted:ran", "output"}), boost::test_tools::per_element());
  // Forgotten with the hand-off memory (24 h after the run).
  b.advance(at(53 + 24 * 3600));
  BOOST_TEST(said(b) == Said{"forget:hosted"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_restarted_executor_runs_hosted_jobs_again_and_sends_kept_outputs_when_asked) {
  const testing::FixedNetwork network;
  DurableJob hosting = entry(DurableJob::Phase::hosting, job(7, 1, 2, 50));
  hosting.origin_mhz = 1000;
  DurableJob ran = entry(DurableJob::Phase::ran, job(8, 1, 2, 50));
  ran.start = at(2);
  ran.finish = at(52);
  const Entries kept{{{DurableRole::hosted, 7}, hosting}, {{DurableRole::hosted, 8}, ran}};
  GridPeer b{0, ServerSpec{"B", 4, 1, 1000, 0}, journaled_config(), {1}, network, at(100)};
  const Recovery r = b.restore(kept, 2, at(100));
  BOOST_TEST((r.requeued == 0U && r.committed == 0U && r.hosted == 1U && r.ran == 1U));
  BOOST_TEST(said(b) == Said{"keep:hosted:hosting"}, boost::test_tools::per_element());
  BOOST_TEST(b.local().jobs_awaiting_input() == 1U);  // J7 waits for its input again
  // Its origin, told B recovered, commits again: both are answered; J8's
  // output goes again (the origin may never have had it). A plain retry
  // only gets the answer.
  b.on_message(1, protocol::JobCommit{7, 1, true}, at(101));
  b.on_message(1, protocol::JobCommit{8, 1, true}, at(101));
  BOOST_TEST(said(b) == (Said{"has#1", "has#1", "output"}), boost::test_tools::per_element());
  b.on_message(1, protocol::JobCommit{8, 1}, at(101));
  BOOST_TEST(said(b) == Said{"has#1"}, boost::test_tools::per_element());
  DataTransfer input = from_partner(DataTransfer::Kind::input, 7);
  input.attempt = 1;
  b.on_transfer_done(input, at(102));
  b.advance(at(152));
  BOOST_TEST(said(b) == (Said{"keep:hosted:ran", "output"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_partner_back_from_its_journal_is_asked_again_for_what_was_committed_to_it) {
  Origin o;  // J2 offered to partner 1 (attempt 1)
  o.peer.on_message(1, protocol::JobAccept{2, 1, false}, at(1));
  o.peer.on_message(1, protocol::JobAccept{2, 1, true}, at(2));
  BOOST_TEST(said(o.peer) == (Said{"commit#1", "input#1"}), boost::test_tools::per_element());
  o.peer.on_peer(1, PeerState::unreachable, "killed", at(10));
  o.peer.on_peer(1, PeerState::recovered, "back", at(20));
  BOOST_TEST(said(o.peer) == Said{"commit#1:again"}, boost::test_tools::per_element());
  o.peer.on_message(1, protocol::JobAccept{2, 1, true}, at(21));
  BOOST_TEST(said(o.peer) == Said{"input#1"}, boost::test_tools::per_element());
  BOOST_TEST(o.peer.open_handoffs() == 1U);
}

BOOST_AUTO_TEST_CASE(a_journaled_origin_never_gives_a_commit_up_on_silence_alone) {
  const testing::FixedNetwork network;
  GridPeer a{0, ServerSpec{"A", 4, 1, 1000, 0}, journaled_config(), {1}, network};
  a.submit(job(1, 0, 4, 100), at(0));
  a.submit(job(2, 0, 4, 100), at(0));
  a.on_message(1, protocol::AttReply{0, 2, seconds(100), {}, 0.0}, at(0));
  a.on_message(1, protocol::JobAccept{2, 1, false}, at(1));
  static_cast<void>(said(a));
  // Commits at 1 s, then 10 s x 1, 2, 4, ... 64 apart: at 11, 31, 71, 151,
  // 311, 631, 1271, then every 640 s -- never given up (a plain peer gives up
  // after 10 sends).
  a.advance(at(1270));
  const Said before = said(a);
  BOOST_TEST(std::count(before.begin(), before.end(), "commit#1") == 6);
  a.advance(at(1271 + 640 * 20));
  const Said after = said(a);
  BOOST_TEST(std::count(after.begin(), after.end(), "commit#1") == 21);
  BOOST_TEST(std::none_of(after.begin(), after.end(), [](const std::string& w) { return w.starts_with("lost"); }));
}

BOOST_AUTO_TEST_CASE(a_journal_does_not_keep_bag_rounds) {
  GridConfig c = journaled_config();
  c.bag_grouping.enabled = true;
  const testing::FixedNetwork network;
  BOOST_CHECK_THROW((GridPeer{0, ServerSpec{"A", 4, 1, 1000, 0}, c, {1}, network}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
