#pragma once
// What one batch of a GridPeer's outputs says, in order, as short words that
// hand-computed tests compare against: "offer#1", "accept#1", "has#1",
// "commit#2" ("commit#2:again" after a crash), "reject#1:unknown", "reject#1:other", "query", "input#2",
// "output", "done", "lost:<reason>", "rejected"; and what a journaled peer
// asks to keep: "keep:own:accepted", "keep:own:committed", "keep:hosted:hosting",
// "keep:hosted:ran", "forget:own", "forget:hosted". The peer's invariants are
// checked each time.
#include <boost/test/unit_test.hpp>
#include <string>
#include <variant>
#include <vector>

#include "peer/core/p2p/grid_peer.hpp"

namespace gridpeer::testing {

using Said = std::vector<std::string>;

inline std::string said_of(const Persist& persist) {
  const std::string role = persist.key.role == DurableRole::own ? "own" : "hosted";
  if (!persist.entry) return "forget:" + role;
  switch (persist.entry->phase) {
    case DurableJob::Phase::accepted:
      return "keep:" + role + ":accepted";
    case DurableJob::Phase::committed:
      return "keep:" + role + ":committed";
    case DurableJob::Phase::hosting:
      return "keep:" + role + ":hosting";
    case DurableJob::Phase::ran:
      return "keep:" + role + ":ran";
  }
  return "keep:?";
}

inline Said said_of(const SchedulerOutput& o) {
  Said out;
  if (const auto* send = std::get_if<SendMessage>(&o)) {
    const auto& m = send->message;
    if (const auto* x = std::get_if<protocol::JobOffer>(&m)) out.push_back("offer#" + std::to_string(x->attempt));
    if (const auto* x = std::get_if<protocol::JobAccept>(&m)) {
      out.push_back((x->hosting ? "has#" : "accept#") + std::to_string(x->attempt));
    }
    if (const auto* x = std::get_if<protocol::JobCommit>(&m)) {
      out.push_back("commit#" + std::to_string(x->attempt) + (x->again ? ":again" : ""));
    }
    if (const auto* x = std::get_if<protocol::JobReject>(&m)) {
      out.push_back("reject#" + std::to_string(x->attempt) +
                    (x->reason == protocol::RejectReason::unknown_offer ? ":unknown" : ":other"));
    }
    if (std::holds_alternative<protocol::AttQuery>(m)) out.push_back("query");
  } else if (const auto* start = std::get_if<StartTransfer>(&o)) {
    out.push_back(start->transfer.kind == DataTransfer::Kind::input ? "input#" + std::to_string(start->transfer.attempt)
                                                                    : std::string("output"));
  } else if (const auto* ended = std::get_if<JobEnded>(&o)) {
    switch (ended->outcome) {
      case JobOutcome::completed:
        out.push_back("done");
        break;
      case JobOutcome::lost:
        out.push_back("lost:" + ended->reason);
        break;
      case JobOutcome::rejected:
        out.push_back("rejected");
        break;
    }
  } else if (const auto* persist = std::get_if<Persist>(&o)) {
    out.push_back(said_of(*persist));
  }
  return out;
}

inline Said said(GridPeer& peer) {
  BOOST_CHECK_NO_THROW(peer.check_invariants());
  Said out;
  for (const SchedulerOutput& o : peer.take_outputs()) {
    for (std::string& word : said_of(o)) out.push_back(std::move(word));
  }
  return out;
}

}  // namespace gridpeer::testing
