// gridsim: gridpeer's virtual-time driver. Dispatches to a subcommand.
#include <exception>
#include <iostream>
#include <string_view>

#include "sim/commands/commands.hpp"
#include "sim/commands/huge_pages.hpp"
#include "sim/studies/run_identity.hpp"

namespace {

void print_usage(std::ostream& out) {
  out << "gridsim - virtual-time simulator of the gridpeer P2P grid scheduler\n\n"
         "usage: gridsim <command> [options]    (gridsim <command> --help for its options)\n\n"
         "commands:\n"
         "  run         simulate Shan et al. 2004's grid of peers under one algorithm (Local,\n"
         "              Centralized, S-I, R-I, Sy-I) over the network model: the metrics\n"
         "  compare     the five algorithms side by side on one grid and workload\n"
         "  coalloc     simulate clusters on a star of links under one co-allocating\n"
         "              meta-scheduler (Jones et al. 2004: A1, B1-B4, Migration Only,\n"
         "              Ideal, Initial) and report turnaround, splits, link saturation\n"
         "  allocate    a log on sites of different speeds under one FCFS queue, the head\n"
         "              placed by one of Shih, Huang & Chung 2010's eight rules (BF ...\n"
         "              TAI2): ART, queue lengths\n"
         "  group       a user's bag of fine-grained jobs grouped over a routed grid with\n"
         "              background traffic (Ang et al. 2007: bandwidth-aware, blind, none)\n"
         "  bag         one peer's bag of fine-grained jobs in the P2P grid, grouped over\n"
         "              its partners (Ang et al.'s rule) or decided job by job (S-I)\n"
         "  membership  who is in the grid, kept by gossip (SWIM with Lifeguard's\n"
         "              refinements): traffic, false suspicions, crash and join times\n"
         "  sweep       run an experiment file (built in: shan2004, jones2004, ...; or your\n"
         "              own TOML) over its axes and seeds, in parallel and resumable:\n"
         "              results, means with 95% intervals, figures, report\n"
         "  plot        figures from per-job CSVs (CDFs of wait and slowdown, busy nodes\n"
         "              and queue over time, Gantt chart, per-origin bars) or a sweep\n"
         "  replay      replay a workload on one server through its local scheduler\n"
         "              (FCFS, EASY, conservative backfilling) and report the metrics\n"
         "  generate    write a seeded synthetic workload (Lublin-Feitelson, Feitelson96,\n"
         "              Poisson) as an SWF file\n"
         "  topology    load a topology file, show the grid it describes, check its traces\n"
         "  bench-awt   micro-benchmark of AWT queries on a long queue, per policy\n"
         "  fuzz        the grid under seeded message faults and partitions, with its\n"
         "              invariants checked after every run\n"
         "  bench       speed benchmarks: single-cluster replay, the 12-server grid,\n"
         "              the network model, growth to 100,000 peers, co-allocation and\n"
         "              the shan2004 sweep\n\n"
         "Every run prints its seed; pass --seed to reproduce it exactly.\n"
         "gridsim starts itself again with GLIBC_TUNABLES=glibc.malloc.hugetlb=1, huge\n"
         "pages for its heap (a tenth faster at 10,000 peers), unless GLIBC_TUNABLES\n"
         "names glibc.malloc.hugetlb already: set it to 0 to keep 4 KiB pages (valgrind).\n"
         "gridsim --version prints the version that every result file records.\n";
}

}  // namespace

int main(int argc, char** argv) {
  gridpeer::sim::restart_with_huge_pages(argv);
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string_view command = argv[1];
  try {
    if (command == "replay") return gridpeer::sim::run_replay_command(argc - 1, argv + 1);
    if (command == "run") return gridpeer::sim::run_run_command(argc - 1, argv + 1);
    if (command == "coalloc") return gridpeer::sim::run_coalloc_command(argc - 1, argv + 1);
    if (command == "allocate") return gridpeer::sim::run_allocate_command(argc - 1, argv + 1);
    if (command == "group") return gridpeer::sim::run_group_command(argc - 1, argv + 1);
    if (command == "bag") return gridpeer::sim::run_bag_command(argc - 1, argv + 1);
    if (command == "membership") return gridpeer::sim::run_membership_command(argc - 1, argv + 1);
    if (command == "sweep") return gridpeer::sim::run_sweep_command(argc - 1, argv + 1);
    if (command == "compare") return gridpeer::sim::run_compare_command(argc - 1, argv + 1);
    if (command == "generate") return gridpeer::sim::run_generate_command(argc - 1, argv + 1);
    if (command == "topology") return gridpeer::sim::run_topology_command(argc - 1, argv + 1);
    if (command == "bench-awt") return gridpeer::sim::run_bench_awt_command(argc - 1, argv + 1);
    if (command == "bench") return gridpeer::sim::run_bench_command(argc - 1, argv + 1);
    if (command == "fuzz") return gridpeer::sim::run_fuzz_command(argc - 1, argv + 1);
    if (command == "plot") return gridpeer::sim::run_plot_command(argc - 1, argv + 1);
    if (command == "--version" || command == "version") {
      std::cout << "gridsim " << gridpeer::sim::gridpeer_version() << '\n';
      return 0;
    }
    if (command == "--help" || command == "-h" || command == "help") {
      print_usage(std::cout);
      return 0;
    }
    std::cerr << "gridsim: unknown command '" << command << "'\n\n";
    print_usage(std::cerr);
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "gridsim " << command << ": error: " << error.what() << '\n';
    return 1;
  }
}
