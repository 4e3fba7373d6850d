#pragma once
// One run of the membership study (gridsim membership): N members that know
// each other from the start run the grid's membership (SWIM with Lifeguard's
// refinements, peer/core/membership) in virtual time, with a seeded message
// loss. After a warm-up it measures, in order:
//   1. steady traffic and false suspicions over a window with no failures:
//      messages and piggybacked updates per member per period, suspicions of
//      live members and members wrongly declared dead;
//   2. a crash: the time to the first suspicion anywhere (SWIM's first
//      detection), until every live member suspects or has declared it
//      dead, and until every one has declared it dead;
//   3. a join through one member: the time until every member holds the
//      newcomer alive.
// The members share one roster of cards and each keeps only where its view
// differs from it, so 100,000 members fit one process.
#include <cstdint>
#include <cxxopts.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peer/core/membership/membership.hpp"
#include "sim/driver/membership_grid.hpp"

namespace gridpeer::sim {

struct MembershipStudySpec {
  std::size_t members = 100;
  double loss = 0;
  Duration latency = std::chrono::milliseconds(1);
  Duration jitter = std::chrono::milliseconds(1);
  membership::MembershipConfig config;
  int warmup_periods = 10;
  int window_periods = 100;   ///< the steady window
  int horizon_periods = 300;  ///< how long the crash and the join may take to be known by all
  std::uint64_t seed = 1;
};

void add_membership_options(cxxopts::Options& options);
/// Throws std::invalid_argument naming the option and what it accepts.
MembershipStudySpec membership_spec_from_options(const cxxopts::ParseResult& args);

struct MembershipStudyResult {
  std::size_t members = 0;
  // The steady window.
  double messages_per_member_period = 0;
  double updates_per_member_period = 0;
  double suspicions_per_member_period = 0;  ///< of members that were alive (false suspicions)
  std::uint64_t false_deaths = 0;           ///< live members declared dead in the window
  // The crash (negative: not reached within the horizon).
  double first_detection_periods = -1;
  double all_suspect_periods = -1;
  double all_dead_periods = -1;
  // The join.
  double join_known_periods = -1;
  std::uint64_t delivered = 0;
  std::uint64_t lost = 0;
  double wall_seconds = 0;
  std::vector<ObservedChange> changes;  ///< every change every member saw (for the CSV)
};

/// `progress(done, total)` in periods, when given (a terminal's progress line).
MembershipStudyResult run_membership_study(const MembershipStudySpec& spec, bool keep_changes,
                                           const std::function<void(std::size_t, std::size_t)>& progress = {});

nlohmann::json membership_identity(const MembershipStudySpec& spec);
nlohmann::json membership_json(const MembershipStudySpec& spec, const MembershipStudyResult& result,
                               bool include_timing);
/// One line per change a member saw: time (s), observer, member, before, after, incarnation.
std::string membership_changes_csv(const MembershipStudyResult& result);
const std::vector<std::string>& membership_summary_metrics();
/// SWIM's expected time to the first detection of a crash, in periods,
/// with `members` members of which one has crashed: 1 / (1 - e^(-q)) where q
/// is the fraction of members alive (Das, Gupta & Motivala 2002, Sec. 3.1).
double swim_expected_first_detection(std::size_t members);

}  // namespace gridpeer::sim
