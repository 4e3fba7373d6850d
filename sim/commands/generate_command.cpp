// gridsim generate: a seeded synthetic workload written as SWF.
#include <fmt/format.h>
#include <cxxopts.hpp>
#include <iostream>

#include "peer/model/rng.hpp"
#include "peer/workload/data_sizes.hpp"
#include "peer/workload/swf_writer.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/workloads.hpp"

#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {

int run_generate_command(int argc, char** argv) {
  cxxopts::Options options("gridsim generate", "Write a seeded synthetic workload as an SWF file.");
  add_shaping_options(options);
  options.add_options()("model",
                        "lublin (Lublin and Feitelson 2003), feitelson96 (Feitelson 1996), or poisson (Poisson "
                        "arrivals, exponential run times, uniform sizes, as Jones et al.'s co-allocation papers use)",
                        cxxopts::value<std::string>()->default_value("lublin"))(
      "jobs", "number of jobs", cxxopts::value<std::size_t>()->default_value("10000"))(
      "max-cpus", "largest job size (the system size of the model)", cxxopts::value<int>()->default_value("128"))(
      "seed", "seed (the same seed gives the same file)", cxxopts::value<std::uint64_t>()->default_value("1"))(
      "out", "output file (default: standard output)", cxxopts::value<std::string>())("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  WorkloadRequest request;
  request.source = args["model"].as<std::string>();
  if (!is_synthetic_model(request.source)) {
    throw std::invalid_argument("--model '" + request.source + "' is not lublin, feitelson96 or poisson");
  }
  request.synthetic_jobs = args["jobs"].as<std::size_t>();
  request.max_cpus = args["max-cpus"].as<int>();
  if (request.max_cpus <= 0) throw std::invalid_argument("--max-cpus must be positive");
  request.seed = args["seed"].as<std::uint64_t>();
  const WorkloadShaping shaping = shaping_from_options(args);
  request.load_factor = shaping.load_factor;
  request.arrival_factor = shaping.arrival_factor;
  request.estimates = shaping.estimates;
  const Workload workload = load_workload(request);
  const std::vector<std::string> header{"Version: 2.2",
                                        "Computer: synthetic",
                                        "Installation: gridsim generate",
                                        "Note: " + workload.description + ", seed " + std::to_string(request.seed) +
                                            ", estimates " +
                                            (shaping.estimates ? workload::to_string(*shaping.estimates) : "exact") +
                                            ", load factor " + fmt::format("{}", shaping.load_factor),
                                        "MaxJobs: " + std::to_string(workload.jobs.size()),
                                        "MaxRecords: " + std::to_string(workload.jobs.size()),
                                        "MaxNodes: " + std::to_string(request.max_cpus),
                                        "MaxProcs: " + std::to_string(request.max_cpus)};
  if (args.count("out") != 0U) {
    cli::write_output_file(args["out"].as<std::string>(),
                           [&](std::ostream& out) { workload::write_swf(out, workload.jobs, header); });
  } else {
    workload::write_swf(std::cout, workload.jobs, header);
  }
  std::cerr << "seed " << request.seed << '\n';
  return 0;
}

}  // namespace gridpeer::sim
