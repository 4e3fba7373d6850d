#pragma once
// The communication model of co-allocation (Jones et al. 2004, eqs. 1-2): a job split over
// clusters sends, on the link of every cluster it uses, eq. 1's demand. The
// meta-scheduler's star (meta/star_links.hpp) and a P2P origin that
// co-allocates (p2p/split_jobs.hpp) both read it.
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <span>
#include <string_view>

#include "peer/model/ids.hpp"

namespace gridpeer {

/// What a job's BSBW says about its per-process bandwidth PPBW.
enum class BisectionReading : std::uint8_t {
  /// BSBW is eq. 1's demand at a half-and-half split (the reading we default
  /// to): PPBW = 4 (n_T - 1) BSBW / n_T^2.
  half_split,
  /// BSBW is what the n_T/2 processes of one half send across, each at
  /// PPBW: PPBW = 2 BSBW / n_T (about half the demand of the default).
  half_of_processes,
};
std::string_view to_string(BisectionReading reading);

/// Jones et al.'s traffic of a job split over clusters (eqs. 1-2).
struct CommunicationModel {
  /// K: the part of the run time that is computation (T_P = K T_E).
  double compute_fraction = 0.7;
  /// BSBW (Mb/s): what a job split half and half demands on each link; the
  /// same for every job of a run. PPBW follows from it (per_process_mbps).
  double bisection_mbps = 500;
  BisectionReading reading = BisectionReading::half_split;

  /// PPBW of a job of `total` nodes (0 for a one-node job), as `reading` says.
  [[nodiscard]] double per_process_mbps(int total) const;
  /// Eq. 1: demand on the link of a cluster holding `here` of `total` nodes,
  /// (here PPBW)(total - here)/(total - 1): 4x(1-x) BSBW with x = here/total.
  [[nodiscard]] double demand_mbps(int here, int total) const {
    return demand_mbps(here, total, per_process_mbps(total));
  }
  /// The same, given PPBW (`ppbw_mbps`, per_process_mbps(total)): a job's
  /// parts share it.
  [[nodiscard]] static double demand_mbps(int here, int total, double ppbw_mbps) {
    if (here <= 0 || here >= total) return 0;
    return here * ppbw_mbps * (total - here) / (total - 1.0);
  }
};

/// One cluster's share of a job.
struct SitePart {
  ServerIndex site = 0;
  int nodes = 0;
  friend bool operator==(const SitePart&, const SitePart&) = default;
};

/// A job's parts, one per cluster. Most jobs run whole on one cluster and a split
/// seldom spans more than four, so the parts live inline: placing a job, which
/// the co-allocation studies do millions of times a run, allocates nothing.
using SiteParts = boost::container::small_vector<SitePart, 4>;
/// Boost 1.74's small_vector is contiguous but its iterators do not say so to std::span.
[[nodiscard]] inline std::span<const SitePart> as_span(const SiteParts& parts) {
  return {parts.data(), parts.size()};
}

}  // namespace gridpeer
