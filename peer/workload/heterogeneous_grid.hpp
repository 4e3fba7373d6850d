#pragma once
// The workload side of Shih, Huang & Chung 2010 (Shih, Huang & Chung): site speeds drawn for a
// given speed heterogeneity SH (eqs. 18-19), and rigid jobs cut to a
// resource cap RC (eq. 20). Seeded, sans-I/O.
#include <array>
#include <optional>
#include <span>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

/// Speeds sp_j for sites of `sizes` processors with sum(sp_j x size_j) =
/// sum(size_j) (eq. 18: the grid's capacity is that of speed 1) and
/// sum((sp_j - 1)^2) / sites = sh (eq. 19). The first sites are drawn from
/// Normal(1, sqrt(sh)); the last two solve both equations (a quadratic); a
/// draw with no real solution or a speed <= 0 is drawn again, and one of the
/// two roots is picked at random. Needs three sites or more; sh = 0 gives
/// every speed 1. Throws std::invalid_argument when no draw succeeds.
std::vector<double> draw_speeds(std::span<const int> sizes, double sh, Rng& rng);

/// The two last speeds given the others, as the generator solves them: both
/// roots (the smaller sp_{n-1} first), or nullopt with no real solution.
std::optional<std::array<std::vector<double>, 2>> solve_last_two_speeds(std::span<const int> sizes,
                                                                        std::span<const double> first, double sh);

/// Eq. 20's job cutting: a job wider than `cap` processors becomes
/// floor(cpus / cap) jobs of `cap` plus one of the remainder (if any), with
/// its submit and run times, consecutive in the order; jobs keep their
/// order. Ids are renumbered from `first_id`; `source` (if given) receives,
/// per new job, the index of the job it was cut from.
std::vector<Job> cut_jobs(std::span<const Job> jobs, int cap, JobId first_id = 1,
                          std::vector<std::size_t>* source = nullptr);

}  // namespace gridpeer::workload
