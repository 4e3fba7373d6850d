#include "peer/core/policy/estimate.hpp"

#include <algorithm>

namespace gridpeer {

SiteCandidate estimate_candidate(const protocol::JobRequirements& r, ServerIndex server, const LocalScheduler& local,
                                 const network::NetworkView& network, bool data_blind) {
  const ServerSpec& spec = local.server();
  SiteCandidate c;
  c.server = server;
  c.ru = local.resource_utilization();
  c.free_cpus = (spec.nodes - local.busy_nodes()) * spec.cpus_per_node;
  c.total_cpus = spec.total_cpus();
  c.mhz = spec.mhz;
  c.queue_length = static_cast<std::uint32_t>(local.queued_jobs());
  const Duration ert = expected_run_time(r.requested, r.origin_mhz, spec.mhz);
  c.awt = local.approximate_wait(r.cpus, ert);
  if (c.awt == kForever) {
    c.att = kForever;
    return c;
  }
  const Duration adt_in = data_blind ? Duration::zero() : network.transfer_estimate(r.input_bytes, r.origin, server);
  const Duration adt_out = data_blind ? Duration::zero() : network.transfer_estimate(r.output_bytes, server, r.origin);
  c.att = std::max(c.awt, adt_in) + ert + adt_out;
  return c;
}

protocol::JobRequirements requirements_of(const Job& job, int origin_mhz) {
  return {job.id, job.origin, job.cpus, job.requested_time, origin_mhz, job.input_bytes, job.output_bytes};
}

}  // namespace gridpeer
