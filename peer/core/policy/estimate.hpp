#pragma once
// ATT (Shan et al. 2004, §3.1.1) of a job on a server, with the rest of what a
// site-selection rule sees of it: the local scheduler's AWT for the job's
// planned time scaled to the server's speed (ERT), the transfers' ADT from
// the network view, and the server's load. Staging the input overlaps the
// wait; the output must come home:
//   ATT = max(AWT, ADT(in, origin -> server)) + ERT + ADT(out, server -> origin).
// Data-blind decisions leave the ADT terms out. Reads only: the local
// scheduler must have been advanced to now.
#include "peer/core/local/local_scheduler.hpp"
#include "peer/core/policy/site_selection.hpp"
#include "peer/network/network_view.hpp"
#include "protocol/messages.hpp"

namespace gridpeer {

SiteCandidate estimate_candidate(const protocol::JobRequirements& job, ServerIndex server, const LocalScheduler& local,
                                 const network::NetworkView& network, bool data_blind);

/// The same for another peer's job under fairness (Jones & Ligon 2006 in the P2P grid): the
/// server offers only nodes no reservation of its own queue needs. The job
/// waits for nothing but its input -- AWT = ADT(in) -- if, when the input
/// lands, its nodes stay reservation-safe for its ERT; else ATT is kForever.
SiteCandidate estimate_reservation_safe(const protocol::JobRequirements& job, ServerIndex server,
                                        const LocalScheduler& local, const network::NetworkView& network,
                                        bool data_blind);

/// What a peer asks its partners (or a meta-scheduler its sites) about a job:
/// never its real run time. `origin_mhz`: the speed its times were measured at.
protocol::JobRequirements requirements_of(const Job& job, int origin_mhz);

}  // namespace gridpeer
