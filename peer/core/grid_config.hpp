#pragma once
// The grid algorithms of Shan et al. 2004, §3 and their parameters.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "peer/core/local/local_policy.hpp"
#include "peer/core/policy/communication_model.hpp"
#include "peer/core/policy/site_selection.hpp"
#include "peer/core/policy/split_rules.hpp"
#include "peer/model/job.hpp"
#include "peer/model/time.hpp"

namespace gridpeer {

enum class GridAlgorithm {
  local,      ///< no migration (reference)
  central,    ///< one scheduler with instant global knowledge (reference)
  sender,     ///< S-I: query the partners when the local AWT is too long
  receiver,   ///< R-I: under-used servers volunteer; jobs wait for them
  symmetric,  ///< Sy-I: R-I, and S-I at once when no volunteer is there
};

std::string_view to_string(GridAlgorithm algorithm);
/// "local", "central", "si", "ri", "syi" (and the long names).
std::optional<GridAlgorithm> parse_grid_algorithm(std::string_view text);

/// Shan et al. 2004 gives no values for these; ours are argued in docs/grid-algorithms.md.
struct GridParameters {
  Duration phi = seconds(60);               ///< AWT below this: run locally, no migration
  Duration sigma = seconds(60);             ///< R-I/Sy-I period: volunteer, re-check waiting jobs
  double delta = 0.7;                       ///< RU below this: volunteer
  Duration query_timeout = seconds(2);      ///< replies later than this are ignored
  Duration volunteer_memory = seconds(60);  ///< Sy-I: a volunteer counts as "there" this long
  bool data_blind = false;                  ///< decide without the ADT terms
  /// An offer not accepted within this is taken back; an unconfirmed commit is
  /// sent again after it (doubling, kMaxCommitRetries times).
  Duration handoff_timeout = seconds(10);
  /// How long an executor remembers a hand-off that is over (an offer let
  /// lapse or refused, a job it ran for another peer), so that a late or
  /// duplicated message about it is answered rather than acted on. It must
  /// outlast every retry: an origin sends an unconfirmed commit for at most
  /// handoff_timeout x (2^(kMaxCommitRetries + 1) - 1), 2.8 h at the default.
  Duration handoff_memory = seconds(24 * 3600);
};

/// Jones & Ligon 2006's fairness carried into the P2P grid: each peer
/// backfills its own users' jobs conservatively and lends others only the
/// nodes its reservations leave free (docs/fairness.md).
struct FairSharing {
  bool enabled = false;
  /// Reservations of the conservative local policy (Jones & Ligon 2006: 10).
  int reservation_depth = 10;
};

/// Ang et al.'s bandwidth-aware grouping carried into the P2P grid (Ang et al.
/// 2007): an origin holding a bag asks its partners once, groups the bag
/// over the repliers and itself by RMI = MIPS x granularity, and sends each
/// group as one 1-CPU job (docs/reproducing-003.md, "In the P2P grid").
struct BagGrouping {
  bool enabled = false;
  double granularity_s = 10;
  /// Visit the candidates by path bandwidth from the origin, widest first
  /// (BA); false: in their own order, the origin first (bandwidth-blind).
  bool bandwidth_aware = true;
  /// RMI from a candidate's MIPS x its free CPUs, not one CPU's MIPS.
  bool total_mips = false;
};

/// How a peer splits its own jobs over sites (Jones et al. 2004 among peers).
enum class PeerSplit : std::uint8_t {
  off,  ///< never: a job runs whole on one server (Jones et al.'s Migration Only)
  a1,   ///< bandwidth-aware within LSLT (eqs. 7-9)
  b3,   ///< most free first, with a large first chunk
};
std::string_view to_string(PeerSplit split);
/// "off", "a1", "b3".
std::optional<PeerSplit> parse_peer_split(std::string_view text);

/// Jones et al. 2004's co-allocation carried into the P2P grid
/// (docs/coallocation.md, "Among peers"): an S-I or Sy-I origin asks its
/// partners what they could give a part of a job and what their link
/// carries, splits the job when that wins over the best single place, and
/// holds every part under a lease until all start at once.
struct PeerCoallocation {
  PeerSplit split = PeerSplit::off;
  double lslt = 1.0;    ///< A1: demand within LSLT of capacity; B3: links within it
  double chunk = 0.85;  ///< B3: the share of the job the first site must take
  CommunicationModel traffic;
  /// This peer's link to the grid (Mb/s); every part on it shares it.
  double link_mbps = 1000;
  /// A part held for a start not committed by then lapses; a running part
  /// whose origin has not renewed it for this long ends itself.
  Duration lease = seconds(60);
  /// How far the peers' clocks may disagree: a split's parts start this much
  /// later, so that every part's clock still reads the start ahead when the
  /// prepare comes (0 in gridsim's exact clocks; the daemon sets its epoch skew).
  Duration skew{};

  [[nodiscard]] bool enabled() const { return split != PeerSplit::off; }
  /// The rule the origin splits by (null when off).
  [[nodiscard]] std::unique_ptr<SplitRule> make_rule() const;
};

struct GridConfig {
  GridAlgorithm algorithm = GridAlgorithm::sender;
  GridParameters parameters;
  /// With fair.enabled the local policy is conservative with
  /// fair.reservation_depth reservations, whatever this says.
  LocalPolicyConfig local_policy;
  FairSharing fair;
  /// How a job's server is chosen among the candidates (Shan et al. 2004: turnaround cost).
  SiteSelectionConfig site_selection;
  /// Centralized over messages (real peers): this peer places every job,
  /// from its ATT queries. Unset, one meta-scheduler with instant knowledge
  /// of every server places them, as Shan et al.'s reference does (gridsim).
  std::optional<ServerIndex> central_peer;
  /// Centralized with S-I's φ rule and locality (not Shan et al.'s reference, which
  /// has neither): a job whose origin's AWT is below φ runs there; only the
  /// others are placed by the central. Labelled "central-phi".
  bool central_home_below_phi = false;
  /// S-I, R-I, Sy-I: bags are grouped at their origin (off: each job of a bag is decided alone).
  BagGrouping bag_grouping;
  /// S-I, Sy-I: jobs split over sites when that wins (off: every job runs whole).
  PeerCoallocation coallocation;
  /// The driver keeps a journal: the peer emits Persist outputs
  /// before the messages whose promises they record, and can be restored.
  bool journaled = false;
};

/// How often an unconfirmed commit is sent again before the job is given up
/// (not by journaled peers: they keep asking until the executor is gone).
inline constexpr int kMaxCommitRetries = 9;
/// A journaled peer's commit retries back off to 2^this hand-off time-outs apart.
inline constexpr int kMaxCommitBackoffDoublings = 6;
/// A partner that refused a job's offer is barred from it for the hand-off
/// time-out, doubling with each refusal up to this many times it.
inline constexpr int kMaxRefusalBackoffFactor = 64;

/// The local policy a peer of `config` runs (conservative under fairness).
LocalPolicyConfig effective_local_policy(const GridConfig& config);

/// "si", "syi-blind", "si-fair", ...: the algorithm as results and peers name it.
std::string algorithm_label(const GridConfig& config);

}  // namespace gridpeer
