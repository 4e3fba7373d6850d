#include "sim/studies/membership_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {
namespace {

using protocol::MemberState;

double in_periods(Duration d, Duration period) {
  return static_cast<double>(d.count()) / static_cast<double>(period.count());
}

std::uint64_t sum_counter(const MembershipGrid& grid, std::uint64_t membership::MembershipCounters::*field) {
  std::uint64_t sum = 0;
  for (const std::string& name : grid.names()) {
    if (grid.running(name)) sum += grid.member(name).counters().*field;
  }
  return sum;
}

Duration milliseconds_option(const cxxopts::ParseResult& args, const char* name, double low, double high) {
  const double ms = args[name].as<double>();
  if (!(ms >= low && ms <= high)) {
    throw std::invalid_argument(fmt::format("--{}: give {:g} to {:g} milliseconds, not {:g}", name, low, high, ms));
  }
  return std::chrono::microseconds(static_cast<std::int64_t>(std::llround(ms * 1000)));
}

/// How many members hold one member in each state, kept from the changes
/// they report as the run goes.
struct ViewCount {
  ViewCount(std::string watched, TimePoint from) : member(std::move(watched)), since(from) {}
  void catch_up(const std::vector<ObservedChange>& changes) {
    for (; seen < changes.size(); ++seen) {
      const ObservedChange& change = changes[seen];
      if (change.change.member != member) continue;
      if (change.change.before) --count[static_cast<std::size_t>(*change.change.before)];
      ++count[static_cast<std::size_t>(change.change.after)];
      last_change = change.at;
      if (first_suspicion == kNever && change.at >= since && change.change.after != MemberState::alive) {
        first_suspicion = change.at;
      }
    }
  }
  [[nodiscard]] std::size_t holding(MemberState state) const {
    return static_cast<std::size_t>(count[static_cast<std::size_t>(state)]);
  }
  std::string member;
  TimePoint since;  ///< suspicions before it do not count as the first
  std::size_t seen = 0;
  std::array<std::int64_t, 4> count{};  ///< by state; members that knew it from the start count as alive
  TimePoint first_suspicion = kNever;
  TimePoint last_change{};
};

}  // namespace

void add_membership_options(cxxopts::Options& options) {
  options.add_options("grid")("members", "members that know each other from the start",
                              cxxopts::value<std::size_t>()->default_value("100"))(
      "loss", "each message is lost with this probability (0 to 0.5)", cxxopts::value<double>()->default_value("0"))(
      "latency-ms", "one-way latency of every message", cxxopts::value<double>()->default_value("1"))(
      "jitter-ms", "a uniform extra delay of up to this much", cxxopts::value<double>()->default_value("1"))(
      "seed", "seed of the run: probe orders, phases, losses", cxxopts::value<std::uint64_t>()->default_value("1"));
  options.add_options("membership")("period-ms", "the protocol period T: one probe per member per period",
                                    cxxopts::value<double>()->default_value("1000"))(
      "probe-timeout-ms", "how long a direct probe waits before asking others to probe",
      cxxopts::value<double>()->default_value("400"))("indirect-probes",
                                                      "K: members asked to probe when a direct probe goes unanswered",
                                                      cxxopts::value<int>()->default_value("3"))(
      "retransmit-mult", "each update is piggybacked mult x ceil(log10(n + 1)) times",
      cxxopts::value<int>()->default_value("4"))(
      "suspicion-mult", "a suspect is declared dead after at least mult x max(1, log10 n) periods",
      cxxopts::value<int>()->default_value("4"))(
      "suspicion-max-mult", "... and at most max-mult times that, shortened by independent suspicions",
      cxxopts::value<int>()->default_value("6"))("max-piggyback", "updates carried by one probe or ack",
                                                 cxxopts::value<std::size_t>()->default_value("32"))(
      "no-syncs",
      "no periodic whole-view exchange between members (SWIM has none; joins are still answered): each costs one "
      "update per member, the bulk of the traffic at 10,000 members and more");
  options.add_options("study")("warmup-periods", "periods before anything is measured",
                               cxxopts::value<int>()->default_value("10"))(
      "window-periods", "the steady window: traffic and false suspicions", cxxopts::value<int>()->default_value("100"))(
      "horizon-periods", "how long a crash and a join may take to be known by every member",
      cxxopts::value<int>()->default_value("300"));
}

MembershipStudySpec membership_spec_from_options(const cxxopts::ParseResult& args) {
  MembershipStudySpec spec;
  spec.members = args["members"].as<std::size_t>();
  if (spec.members < 3 || spec.members > 200'000) throw std::invalid_argument("--members: give 3 to 200,000");
  spec.loss = args["loss"].as<double>();
  if (!(spec.loss >= 0 && spec.loss <= 0.5)) throw std::invalid_argument("--loss: give 0 to 0.5");
  spec.latency = milliseconds_option(args, "latency-ms", 0, 60'000);
  spec.jitter = milliseconds_option(args, "jitter-ms", 0, 60'000);
  spec.seed = args["seed"].as<std::uint64_t>();
  membership::MembershipConfig& config = spec.config;
  config.period = milliseconds_option(args, "period-ms", 1, 3'600'000);
  config.probe_timeout = milliseconds_option(args, "probe-timeout-ms", 0.001, 3'600'000);
  config.indirect_probes = args["indirect-probes"].as<int>();
  config.retransmit_mult = args["retransmit-mult"].as<int>();
  config.suspicion_mult = args["suspicion-mult"].as<int>();
  config.suspicion_max_mult = args["suspicion-max-mult"].as<int>();
  config.max_piggyback = args["max-piggyback"].as<std::size_t>();
  config.syncs = !args["no-syncs"].as<bool>();
  config.validate();
  spec.warmup_periods = args["warmup-periods"].as<int>();
  spec.window_periods = args["window-periods"].as<int>();
  spec.horizon_periods = args["horizon-periods"].as<int>();
  for (const auto& [value, name] :
       {std::pair{spec.warmup_periods, "--warmup-periods"}, std::pair{spec.window_periods, "--window-periods"},
        std::pair{spec.horizon_periods, "--horizon-periods"}}) {
    if (value < 1 || value > 1'000'000) throw std::invalid_argument(std::string(name) + ": give 1 to 1,000,000");
  }
  return spec;
}

double swim_expected_first_detection(std::size_t members) {
  const double alive = static_cast<double>(members - 1) / static_cast<double>(members);
  return 1.0 / (1.0 - std::exp(-alive));
}

MembershipStudyResult run_membership_study(const MembershipStudySpec& spec, bool keep_changes,
                                           const std::function<void(std::size_t, std::size_t)>& progress) {
  const auto started = std::chrono::steady_clock::now();
  const Duration period = spec.config.period;
  MembershipGridOptions options;
  options.config = spec.config;
  options.latency = spec.latency;
  options.jitter = spec.jitter;
  options.loss = spec.loss;
  options.seed = spec.seed;
  MembershipGrid grid(options);
  const std::vector<std::string> names = grid.start_static(spec.members, TimePoint{});
  MembershipStudyResult result;
  result.members = spec.members;

  // 1. The steady window.
  const TimePoint window_start = TimePoint{} + period * spec.warmup_periods;
  // At most: the warm-up, the window, and a horizon each for the crash and the join.
  const std::size_t total_periods = static_cast<std::size_t>(spec.warmup_periods) +
                                    static_cast<std::size_t>(spec.window_periods) +
                                    2 * static_cast<std::size_t>(spec.horizon_periods);
  const auto report = [&] {
    if (progress) {
      progress(std::min(total_periods, static_cast<std::size_t>(grid.now().time_since_epoch() / period)),
               total_periods);
    }
  };
  const auto run_to = [&](TimePoint until) {
    while (grid.now() < until) {
      grid.run_until(std::min(until, grid.now() + period * 10));
      report();
    }
  };
  run_to(window_start);
  const std::uint64_t messages_before = sum_counter(grid, &membership::MembershipCounters::messages_sent);
  const std::uint64_t updates_before = sum_counter(grid, &membership::MembershipCounters::updates_sent);
  const std::uint64_t suspicions_before = sum_counter(grid, &membership::MembershipCounters::suspicions);
  const std::size_t changes_before = grid.changes().size();
  const TimePoint window_end = window_start + period * spec.window_periods;
  run_to(window_end);
  const double member_periods = static_cast<double>(spec.members) * spec.window_periods;
  result.messages_per_member_period =
      static_cast<double>(sum_counter(grid, &membership::MembershipCounters::messages_sent) - messages_before) /
      member_periods;
  result.updates_per_member_period =
      static_cast<double>(sum_counter(grid, &membership::MembershipCounters::updates_sent) - updates_before) /
      member_periods;
  result.suspicions_per_member_period =
      static_cast<double>(sum_counter(grid, &membership::MembershipCounters::suspicions) - suspicions_before) /
      member_periods;
  for (std::size_t i = changes_before; i < grid.changes().size(); ++i) {
    if (grid.changes()[i].change.after == MemberState::dead) ++result.false_deaths;
  }

  // 2. A crash, then 3. a join, each followed until every member knows,
  // from the changes the members report (polling every view would cost
  // n^2 a step).
  const std::string& crashed = names.back();
  const TimePoint crash_at = window_end;
  grid.stop(crashed, crash_at);
  const std::size_t observers = spec.members - 1;
  ViewCount crash_views(crashed, crash_at);
  const TimePoint crash_horizon = crash_at + period * spec.horizon_periods;
  while (grid.now() < crash_horizon && result.all_dead_periods < 0) {
    grid.run_until(grid.now() + period / 10);
    report();
    crash_views.catch_up(grid.changes());
    if (result.first_detection_periods < 0 && crash_views.first_suspicion != kNever) {
      result.first_detection_periods = in_periods(crash_views.first_suspicion - crash_at, period);
    }
    const std::size_t dead = crash_views.holding(MemberState::dead);
    if (result.all_suspect_periods < 0 && crash_views.holding(MemberState::suspect) + dead == observers) {
      result.all_suspect_periods = in_periods(crash_views.last_change - crash_at, period);
    }
    if (dead == observers) result.all_dead_periods = in_periods(crash_views.last_change - crash_at, period);
  }
  const TimePoint join_at = grid.now() + period;
  grid.join("joiner", {names.front()}, join_at);
  ViewCount join_views("joiner", join_at);
  while (grid.now() < join_at + period * spec.horizon_periods && result.join_known_periods < 0) {
    grid.run_until(grid.now() + period / 10);
    report();
    join_views.catch_up(grid.changes());
    if (join_views.holding(MemberState::alive) == observers) {
      result.join_known_periods = in_periods(join_views.last_change - join_at, period);
    }
  }
  grid.check_invariants();
  result.delivered = grid.delivered();
  result.lost = grid.lost();
  if (keep_changes) result.changes = grid.changes();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

nlohmann::json membership_identity(const MembershipStudySpec& spec) {
  const auto ms = [](Duration d) { return static_cast<double>(d.count()) / 1000.0; };
  return {{"version", gridpeer_version()},
          {"model", "membership"},
          {"options",
           {{"members", spec.members},
            {"loss", spec.loss},
            {"latency_ms", ms(spec.latency)},
            {"jitter_ms", ms(spec.jitter)},
            {"seed", spec.seed},
            {"period_ms", ms(spec.config.period)},
            {"probe_timeout_ms", ms(spec.config.probe_timeout)},
            {"indirect_probes", spec.config.indirect_probes},
            {"retransmit_mult", spec.config.retransmit_mult},
            {"suspicion_mult", spec.config.suspicion_mult},
            {"suspicion_max_mult", spec.config.suspicion_max_mult},
            {"max_piggyback", spec.config.max_piggyback},
            {"syncs", spec.config.syncs},
            {"warmup_periods", spec.warmup_periods},
            {"window_periods", spec.window_periods},
            {"horizon_periods", spec.horizon_periods}}},
          {"inputs", nlohmann::json::object()}};
}

nlohmann::json membership_json(const MembershipStudySpec& spec, const MembershipStudyResult& result,
                               bool include_timing) {
  const auto reached = [](double periods) { return periods < 0 ? nlohmann::json(nullptr) : nlohmann::json(periods); };
  const double log_n = std::log10(static_cast<double>(spec.members));
  return {{"members", result.members},
          {"loss", spec.loss},
          {"syncs", spec.config.syncs},
          {"seed", spec.seed},
          {"messages_per_member_period", result.messages_per_member_period},
          {"updates_per_member_period", result.updates_per_member_period},
          {"suspicions_per_member_period", result.suspicions_per_member_period},
          {"false_deaths", result.false_deaths},
          {"first_detection_periods", reached(result.first_detection_periods)},
          {"swim_first_detection_periods", swim_expected_first_detection(spec.members)},
          {"all_suspect_periods", reached(result.all_suspect_periods)},
          {"all_dead_periods", reached(result.all_dead_periods)},
          {"suspicion_timeout_periods",
           in_periods(membership::Membership::suspicion_timeout(spec.config, spec.members, 0), spec.config.period)},
          {"join_known_periods", reached(result.join_known_periods)},
          {"log10_members", log_n},
          {"delivered", result.delivered},
          {"lost", result.lost},
          {"wall_seconds", include_timing ? result.wall_seconds : 0.0}};
}

std::string membership_changes_csv(const MembershipStudyResult& result) {
  std::ostringstream csv;
  csv << "time_s,observer,member,before,after,incarnation\n";
  for (const ObservedChange& seen : result.changes) {
    csv << fmt::format("{:.6f},{},{},{},{},{}\n", to_seconds(seen.at), seen.observer, seen.change.member,
                       seen.change.before ? to_string(*seen.change.before) : "", to_string(seen.change.after),
                       seen.change.incarnation);
  }
  return csv.str();
}

const std::vector<std::string>& membership_summary_metrics() {
  static const std::vector<std::string> metrics = {"messages_per_member_period",
                                                   "updates_per_member_period",
                                                   "suspicions_per_member_period",
                                                   "false_deaths",
                                                   "first_detection_periods",
                                                   "all_suspect_periods",
                                                   "all_dead_periods",
                                                   "join_known_periods"};
  return metrics;
}

}  // namespace gridpeer::sim
