#pragma once
// One server's workload replayed under local policies (gridsim replay, and
// gridpeer.replay in Python): the options, what they set up, and the runs.
#include <spdlog/logger.h>
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peer/core/local/local_policy.hpp"
#include "peer/core/metrics.hpp"
#include "peer/io/report/jobs_csv.hpp"
#include "peer/model/server.hpp"
#include "sim/studies/local_replay.hpp"
#include "sim/studies/workloads.hpp"

namespace gridpeer::sim {

/// Every option that defines a replay (workload, server, policies), not where results go.
void add_replay_options(cxxopts::Options& options);

struct ReplayStudy {
  ServerSpec server;
  std::vector<LocalPolicyConfig> policies;
  WorkloadRequest request;
  Workload workload;
};

/// Validates the options, loads the workload and sizes the server; logs what
/// it dropped. Throws std::invalid_argument naming the option.
ReplayStudy replay_study_from_options(const cxxopts::ParseResult& args, spdlog::logger& logger);

struct PolicyRun {
  LocalPolicyConfig policy;
  LocalReplayResult replay;
  MetricsSummary summary;
  double wall_seconds = 0;
};

/// Runs every policy of the study in turn, with a progress line on a TTY.
std::vector<PolicyRun> run_replay_study(const ReplayStudy& study);

std::string policy_label(const LocalPolicyConfig& policy);
nlohmann::json to_json(const PolicyRun& run);
/// Every job's row; a job without a record was wider than the server.
std::vector<report::JobRow> replay_rows(const Workload& workload, const LocalReplayResult& replay);

}  // namespace gridpeer::sim
