#pragma once
// Ang et al.'s bandwidth-aware job grouping (Ang et al. 2007, Fig. 1): a bag of
// fine-grained jobs is packed into groups, one per visit of a resource, each
// holding the longest run of consecutive jobs whose MI fit the resource's
// MIPS x granularity (RMI); resources are visited cyclically in order of
// their bottleneck bandwidth from the scheduling user, and groups are sent
// largest first. The baselines reuse the same pieces: Muthuvelu et al.'s
// bandwidth-blind grouping (resources in their own order, groups sent in
// creation order) and no grouping (each job alone, round-robin). Pure
// functions; the drivers time the transfers and runs
// (docs/reproducing-003.md; our reading of Ang et al. 2007).
#include <cstddef>
#include <span>
#include <vector>

namespace gridpeer {

/// One resource as the grouping sees it.
struct GroupingResource {
  double mips = 0;       ///< MIPS of one PE (the spec's default reading), or the resource's total
  double bandwidth = 0;  ///< bottleneck bandwidth from the user, bytes/s (static capacity or current share)
};

struct JobGroup {
  std::size_t resource = 0;       ///< index into the resources given
  std::vector<std::size_t> jobs;  ///< indices into the bag, consecutive
  double mi = 0;                  ///< the members' MI summed
};

/// Resource indices by descending bandwidth, ties in the given order (stable).
std::vector<std::size_t> by_bandwidth(std::span<const GroupingResource> resources);
/// 0, 1, ..., n - 1: the bandwidth-blind order.
std::vector<std::size_t> in_order(std::span<const GroupingResource> resources);

/// Fig. 1: walks `order` cyclically; at each resource r a group takes the
/// maximal run of the next jobs whose MI sum is <= mips_r x granularity_s (a
/// job larger than that alone: no empty groups), until every job is grouped.
/// Throws std::invalid_argument for no resource, a granularity <= 0, or a
/// resource of MIPS <= 0.
std::vector<JobGroup> group_jobs(std::span<const double> job_mi, std::span<const GroupingResource> resources,
                                 std::span<const std::size_t> order, double granularity_s);

/// No grouping: job i alone on resource i mod n.
std::vector<JobGroup> one_job_each(std::span<const double> job_mi, std::span<const GroupingResource> resources);

/// Group indices largest MI first, ties in creation order (LJF dispatch).
std::vector<std::size_t> largest_first(std::span<const JobGroup> groups);

}  // namespace gridpeer
