#define BOOST_TEST_MODULE daemon
// The daemon's parts, in process: what the client service answers (no
// connection, no clock), the data plane and the connection gate over
// loopback sockets in this process.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "peer/daemon/client_service.hpp"

using namespace gridpeer;
using namespace gridpeer::daemon;

namespace {

/// A peer that writes down what it was asked, in order.
struct FakePeer final : ClientBackend {
  std::vector<std::string> calls;
  std::vector<protocol::ResultRecord> kept;
  std::optional<std::string> undrain_refusal;
  JobId next = 100;
  protocol::SubmitAck submit(const Job& job) override {
    calls.push_back("submit:" + std::to_string(job.cpus));
    return {next++, true, {}};
  }
  void commit_submissions() override { calls.emplace_back("commit"); }
  protocol::PeerStatus status() override {
    calls.emplace_back("status");
    protocol::PeerStatus s;
    s.name = "A";
    return s;
  }
  [[nodiscard]] const std::vector<protocol::ResultRecord>& results() const override { return kept; }
  void drain() override { calls.emplace_back("drain"); }
  std::optional<std::string> undrain() override {
    calls.emplace_back("undrain");
    return undrain_refusal;
  }
  void stop(const std::string& why, bool leave) override { calls.push_back((leave ? "leave:" : "stop:") + why); }
};

struct Fixture {
  FakePeer peer;
  std::vector<std::string> logged;
  ClientService service{peer, [this](spdlog::level::level_enum, const std::string& text) { logged.push_back(text); }};
};

const std::optional<transport::CertificateIdentity> kPlaintext;
const std::optional<transport::CertificateIdentity> kSubmitter =
    transport::CertificateIdentity{"alice", transport::Role::submitter};
const std::optional<transport::CertificateIdentity> kOperator =
    transport::CertificateIdentity{"ops", transport::Role::operator_role};

Job one_job(int cpus) {
  Job job;
  job.cpus = cpus;
  job.run_time = job.requested_time = seconds(60);
  return job;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(client_service)

BOOST_AUTO_TEST_CASE(a_submission_is_committed_before_it_is_acknowledged) {
  Fixture f;
  const auto answer = f.service.handle(protocol::Submit{one_job(4)}, kSubmitter);
  BOOST_TEST(f.peer.calls == (std::vector<std::string>{"submit:4", "commit"}), boost::test_tools::per_element());
  BOOST_REQUIRE(answer.replies.size() == 1U);
  BOOST_TEST(std::get<protocol::SubmitAck>(answer.replies[0]).job == 100U);
  BOOST_TEST(!answer.refusal);
}

BOOST_AUTO_TEST_CASE(a_bag_is_one_commit_then_its_acknowledgements) {
  Fixture f;
  protocol::SubmitBag bag{7, {one_job(1), one_job(1), one_job(1)}};
  const auto answer = f.service.handle(bag, kSubmitter);
  BOOST_TEST(f.peer.calls == (std::vector<std::string>{"submit:1", "submit:1", "submit:1", "commit"}),
             boost::test_tools::per_element());
  BOOST_REQUIRE(answer.replies.size() == 3U);
  BOOST_TEST(std::get<protocol::SubmitAck>(answer.replies[2]).job == 102U);
}

BOOST_AUTO_TEST_CASE(results_are_read_a_page_at_a_time) {
  Fixture f;
  for (JobId id = 0; id < 25; ++id) f.peer.kept.push_back({JobRecord{id}, JobOutcome::completed, {}});
  const auto page = std::get<protocol::ResultsReply>(f.service.handle(protocol::ResultsRequest{10, 5}, {}).replies[0]);
  BOOST_TEST(page.total == 25U);
  BOOST_REQUIRE(page.records.size() == 5U);
  BOOST_TEST(page.records.front().record.id == 10U);
  BOOST_TEST(page.records.back().record.id == 14U);
  // max 0: as many as a reply holds; from past the end: none.
  BOOST_TEST(std::get<protocol::ResultsReply>(f.service.handle(protocol::ResultsRequest{0, 0}, {}).replies[0])
                 .records.size() == 25U);
  BOOST_TEST(std::get<protocol::ResultsReply>(f.service.handle(protocol::ResultsRequest{30, 5}, {}).replies[0])
                 .records.empty());
}

BOOST_AUTO_TEST_CASE(operating_a_peer_needs_an_operators_certificate) {
  Fixture f;
  for (const protocol::WireMessage& request :
       {protocol::WireMessage{protocol::Drain{}}, protocol::WireMessage{protocol::Undrain{}},
        protocol::WireMessage{protocol::Shutdown{}}}) {
    const auto refused = f.service.handle(request, kSubmitter);
    BOOST_REQUIRE(refused.refusal.has_value());
    BOOST_TEST(
        refused.refusal->detail.find("needs an operator's certificate; yours is a submitter's") != std::string::npos,
        refused.refusal->detail);
    BOOST_TEST(refused.replies.empty());
  }
  BOOST_TEST(f.peer.calls.empty());  // nothing reached the peer
  BOOST_TEST(f.logged.back() == "shutdown refused to submitter alice");
  // An operator may; in plaintext (loopback experiments) anyone who reaches the port may.
  BOOST_TEST(std::holds_alternative<protocol::Ack>(f.service.handle(protocol::Drain{}, kOperator).replies.at(0)));
  BOOST_TEST(f.logged.back() == "drain asked by operator ops");
  BOOST_TEST(std::holds_alternative<protocol::Ack>(f.service.handle(protocol::Drain{}, kPlaintext).replies.at(0)));
  const auto stop = f.service.handle(protocol::Shutdown{}, kOperator);
  BOOST_TEST(std::holds_alternative<protocol::Ack>(stop.replies.at(0)));
  BOOST_TEST(f.peer.calls.back() == "stop:asked by gridctl");
}

BOOST_AUTO_TEST_CASE(an_undrain_the_peer_cannot_take_is_refused_with_its_reason) {
  Fixture f;
  f.peer.undrain_refusal = "A is shutting down";
  const auto answer = f.service.handle(protocol::Undrain{}, kOperator);
  BOOST_REQUIRE(answer.refusal.has_value());
  BOOST_TEST(answer.refusal->detail == "A is shutting down");
}

BOOST_AUTO_TEST_CASE(what_is_not_a_request_is_refused_by_name) {
  Fixture f;
  const auto answer = f.service.handle(protocol::AttQuery{}, kSubmitter);
  BOOST_REQUIRE(answer.refusal.has_value());
  BOOST_TEST(answer.refusal->detail == "attQuery is not a client request");
  BOOST_TEST(f.peer.calls.empty());
}

BOOST_AUTO_TEST_SUITE_END()
