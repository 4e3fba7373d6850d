#pragma once
// The part of a sweep's report that belongs to Shan et al. 2004 (experiment
// files with report = "shan2004"): figures in the spirit of their Figs. 2 and
// 3 (gnuplot, PNG and SVG), and each finding of their §5 beside ours.
#include <spdlog/logger.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/reports/findings.hpp"

namespace gridpeer::sim {

/// Writes figures/*.dat, *.gp and, when gnuplot is installed, *.png and *.svg.
bool write_shan2004_figures(const std::filesystem::path& dir, const nlohmann::json& results, spdlog::logger& logger);
/// The findings and the per-algorithm table, as markdown sections.
std::string shan2004_report(const nlohmann::json& results, bool with_figures);

/// Means over the runs matching every given field (empty = any; seed < 0 = any).
double mean_metric(const nlohmann::json& results, const std::string& metric, const std::string& algorithm,
                   const std::string& network = "", const std::string& data_size = "", const std::string& sites = "",
                   int seed = -1);

/// Shan et al.'s §5 findings as rows to evaluate per seed (findings.hpp).
std::vector<Finding> shan2004_findings(const nlohmann::json& results);

}  // namespace gridpeer::sim
