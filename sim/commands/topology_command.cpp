// gridsim topology: show the grid a topology file describes; check its traces.
#include <fmt/format.h>
#include <cxxopts.hpp>
#include <iostream>

#include "peer/io/topology/topology.hpp"
#include "peer/io/traces/trace_file.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/workloads.hpp"

namespace gridpeer::sim {

int run_topology_command(int argc, char** argv) {
  cxxopts::Options options("gridsim topology",
                           "Load a topology file, print the grid it describes, and (with --check-traces) count\n"
                           "the jobs of each server's trace window.");
  options.add_options()("file", "the topology file", cxxopts::value<std::string>())(
      "sites", "site split to use (e.g. 3, 6, 12; default: the file's default_split)", cxxopts::value<std::string>())(
      "network", "network setting (e.g. fast, slow; default: the file's default_network)",
      cxxopts::value<std::string>())("trace-dir",
                                     "where the trace files are (default: $GRIDPEER_TRACE_DIR, then ../shared/traces)",
                                     cxxopts::value<std::string>())(
      "check-traces", "open every trace and count the jobs in each window")("h,help", "show this help");
  options.parse_positional({"file"});
  options.positional_help("FILE");
  const auto args = options.parse(argc, argv);
  if (args.count("help") != 0U || args.count("file") == 0U) {
    std::cout << options.help() << '\n';
    return args.count("help") != 0U ? 0 : 2;
  }
  topology::TopologySelection selection;
  if (args.count("sites") != 0U) selection.split = args["sites"].as<std::string>();
  if (args.count("network") != 0U) selection.network = args["network"].as<std::string>();
  const auto grid = topology::load_topology(args["file"].as<std::string>(), selection);

  std::cout << grid.name << ": " << grid.description << '\n'
            << "site split '" << grid.split << "' (" << grid.site_count << " sites), network '" << grid.network_name
            << "': ";
  if (grid.routed) {
    std::cout << grid.routed->routers.size() << " routers, " << grid.routed->hosts.size() << " hosts besides servers, "
              << grid.routed->links.size() << " links, routes " << network::to_string(grid.routed->rule) << '\n';
    if (!grid.routed->routes.empty()) {
      std::cout << "  " << grid.routed->routes.size() << " routes given by the file (one direction each)\n";
    }
    for (const auto& link : grid.routed->links) {
      const std::string ends = link.a.empty() ? link.name : link.a + " - " + link.b;
      std::cout << fmt::format("  {}: {:.3f} Mb/s{}, {:g} ms\n", ends, link.mbps,
                               link.capacity_class.empty() ? "" : " (class " + link.capacity_class + ")",
                               to_seconds(link.latency) * 1000);
    }
  } else {
    std::cout << "site " << grid.network.site_mbps << " Mb/s, WAN " << grid.network.wan_mbps << " Mb/s\n";
  }
  std::cout << "splits offered: ";
  for (const auto& split : grid.splits) std::cout << split << ' ';
  std::cout << "   networks offered: ";
  for (const auto& network : grid.networks) std::cout << network << ' ';
  std::cout << "\n\n"
            << fmt::format("{:<6} {:>6} {:>9} {:>6} {:>6} {:>5}  {}\n", "server", "nodes", "CPUs/node", "CPUs", "MHz",
                           "site", "trace window");
  std::optional<std::string> trace_dir_flag;
  if (args.count("trace-dir") != 0U) trace_dir_flag = args["trace-dir"].as<std::string>();
  const bool check = args.count("check-traces") != 0U;
  int failures = 0;
  for (const auto& server : grid.servers) {
    std::string trace = "-";
    if (server.trace) {
      trace = fmt::format("{} from {} for {} days", server.trace->file, workload::to_string(server.trace->start),
                          server.trace->days);
      if (check) {
        try {
          WorkloadRequest request;
          request.source = server.trace->file;
          request.window = server.trace->window();
          request.trace_dir = trace_dir_flag;
          const Workload workload = load_workload(request);
          trace += fmt::format(": {} jobs", workload.jobs.size());
          if (workload.max_procs && *workload.max_procs > server.spec.total_cpus()) {
            trace += fmt::format(" (WARNING: MaxProcs {} > {} CPUs)", *workload.max_procs, server.spec.total_cpus());
          }
        } catch (const std::exception& error) {
          trace += std::string(": ERROR ") + error.what();
          ++failures;
        }
      }
    }
    std::cout << fmt::format("{:<6} {:>6} {:>9} {:>6} {:>6} {:>5}  {}\n", server.spec.name, server.spec.nodes,
                             server.spec.cpus_per_node, server.spec.total_cpus(), server.spec.mhz, server.spec.site,
                             trace);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace gridpeer::sim
