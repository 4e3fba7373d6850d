#include "peer/core/policy/estimate.hpp"

#include <algorithm>

namespace gridpeer {

namespace {

/// What a candidate says of a server apart from AWT and ATT.
SiteCandidate describe(ServerIndex server, const LocalScheduler& local) {
  const ServerSpec& spec = local.server();
  SiteCandidate c;
  c.server = server;
  c.ru = local.resource_utilization();
  c.free_cpus = (spec.nodes - local.busy_nodes()) * spec.cpus_per_node;
  c.total_cpus = spec.total_cpus();
  c.mhz = spec.mhz;
  c.queue_length = static_cast<std::uint32_t>(local.queued_jobs());
  return c;
}

struct Transfers {
  Duration in{};
  Duration out{};
};

Transfers transfers(const protocol::JobRequirements& r, ServerIndex server, const network::NetworkView& network,
                    bool data_blind) {
  if (data_blind) return {};
  return {network.transfer_estimate(r.input_bytes, r.origin, server),
          network.transfer_estimate(r.output_bytes, server, r.origin)};
}

}  // namespace

SiteCandidate estimate_candidate(const protocol::JobRequirements& r, ServerIndex server, const LocalScheduler& local,
                                 const network::NetworkView& network, bool data_blind) {
  SiteCandidate c = describe(server, local);
  const Duration ert = expected_run_time(r.requested, r.origin_mhz, local.server().mhz);
  c.awt = local.approximate_wait(r.cpus, ert);
  if (c.awt == kForever) {
    c.att = kForever;
    return c;
  }
  const Transfers adt = transfers(r, server, network, data_blind);
  c.att = std::max(c.awt, adt.in) + ert + adt.out;
  return c;
}

SiteCandidate estimate_reservation_safe(const protocol::JobRequirements& r, ServerIndex server,
                                        const LocalScheduler& local, const network::NetworkView& network,
                                        bool data_blind) {
  SiteCandidate c = describe(server, local);
  const ServerSpec& spec = local.server();
  const Duration ert = expected_run_time(r.requested, r.origin_mhz, spec.mhz);
  const Transfers adt = transfers(r, server, network, data_blind);
  const int nodes = spec.nodes_for(r.cpus);
  if (nodes > spec.nodes || local.reservation_safe_nodes(local.now() + adt.in, ert) < nodes) {
    c.awt = c.att = kForever;
    return c;
  }
  c.awt = adt.in;
  c.att = adt.in + ert + adt.out;
  return c;
}

protocol::JobRequirements requirements_of(const Job& job, int origin_mhz) {
  return {job.id, job.origin, job.cpus, job.requested_time, origin_mhz, job.input_bytes, job.output_bytes};
}

}  // namespace gridpeer
