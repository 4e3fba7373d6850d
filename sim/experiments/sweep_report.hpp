#pragma once
// What a finished sweep turns into: a flat CSV, figures in the spirit of 002
// Fig. 2 and 3 (gnuplot, PNG and SVG), and report.md setting each finding of
// 002 §5 beside the figure measured here.
#include <spdlog/logger.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace gridpeer::sim {

std::string results_csv(const nlohmann::json& results);
/// Writes figures/*.dat, *.gp and, when gnuplot is installed, *.png and *.svg.
bool write_figures(const std::filesystem::path& dir, const nlohmann::json& results, spdlog::logger& logger);
std::string sweep_report(const nlohmann::json& results, bool with_figures);

/// Means over the runs matching every given field (empty = any).
double mean_metric(const nlohmann::json& results, const std::string& metric, const std::string& algorithm,
                   const std::string& network = "", const std::string& data_size = "", const std::string& sites = "");

}  // namespace gridpeer::sim
