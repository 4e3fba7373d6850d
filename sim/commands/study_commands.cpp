// gridsim coalloc, allocate, group and bag: one run of a study, each the same
// shape (sim/studies/study.hpp) -- read the options, draw or load the
// workload, run, print the figures, write the JSON and the per-row CSV.
#include <cxxopts.hpp>
#include <iostream>
#include <string>

#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"
#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/study_definitions.hpp"

namespace gridpeer::sim {
namespace {

template <Study S>
int run_study_command(int argc, char** argv, const std::string& description) {
  cxxopts::Options options(std::string(S::command), description);
  S::add_options(options);
  add_study_output_options(options, S::rows_option, S::rows_help);
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  const typename S::Spec spec = S::spec_from(args);
  logger->info("seed {}", S::seed(spec));
  const typename S::Workload workload = S::load(spec);
  for (const std::string& warning : S::warnings(workload)) logger->warn("{}", warning);
  Progress progress(std::string(S::model), 0);
  RunHooks hooks;
  hooks.keep_rows = args.count(S::rows_option) != 0U;
  hooks.progress = [&](std::size_t done, std::size_t total) {
    progress.set_total(total);
    progress.update(done);
  };
  const typename S::Result result = S::run(spec, workload, hooks);
  progress.finish();
  std::cout << S::table(spec, result) << "seed " << S::seed(spec) << '\n';
  if (hooks.keep_rows) cli::write_output_file(args[S::rows_option].template as<std::string>(), S::rows_csv(result));
  FileHashes hashes;
  write_study_json(args, S::json(spec, result, args.count("no-timing") == 0U), S::identity(spec, args, hashes), argc,
                   argv);
  return 0;
}

}  // namespace

int run_coalloc_command(int argc, char** argv) {
  return run_study_command<CoallocStudy>(
      argc, argv,
      "Simulate a grid of clusters under one co-allocating meta-scheduler (Jones et al. 2004): clusters of\n"
      "single-CPU nodes, each with one link to a central switch; a job that no single cluster can start is\n"
      "split across clusters, and its communication slows down when the links saturate. Defaults are the\n"
      "paper's: 4 x 100 nodes, 1000 Mb/s links, Poisson arrivals every 150 s per cluster, exponential run\n"
      "times of mean 450 s, UNIF[10, 50] nodes (load 0.9), 400,000 jobs per cluster, K = 0.7.\n"
      "The experiment itself: gridsim sweep jones2004 --out DIR (docs/coallocation.md).\n"
      "Fairness (Jones & Ligon 2006): --sharing reservation-safe (ICS+B) or none (No Share), with each\n"
      "cluster's own --rates; its experiment: gridsim sweep jones2006 --out DIR (docs/fairness.md).");
}

int run_allocate_command(int argc, char** argv) {
  return run_study_command<AllocationStudy>(
      argc, argv,
      "Simulate processor allocation under speed heterogeneity (Shih, Huang & Chung 2010): a log's jobs on\n"
      "sites of different speeds, one global FCFS queue with no backfilling, the head placed by a site-selection\n"
      "rule (BF, FF, SI, TI, AI, AI2, TAI, TAI2) when a job is submitted to an empty queue or a job ends.\n"
      "Defaults are the paper's: SDSC-SP2 (run time > 0 and processors > 0) on sites of 8/128/128/128/50\n"
      "processors; run times scale by SL / site speed; --workload feitelson96|lublin99 runs the paper's\n"
      "synthetic models instead. docs/processor-allocation.md describes the model and its readings.");
}

int run_group_command(int argc, char** argv) {
  return run_study_command<GroupingStudy>(
      argc, argv,
      "Simulate one user's bag of fine-grained jobs grouped and sent to the resources of a routed grid (Ang et\n"
      "al. 2007's bandwidth-aware job grouping), while the other users' jobs compete for the resources and\n"
      "every user's background bursts load the max-min network. Reports the total processing time (from the\n"
      "start of scheduling to the last result home), the groups, and how busy the links were.\n"
      "Defaults are the paper's where it gives them (120 jobs of 200 MI +- 20%, granularity 10 s, 20 users of\n"
      "whom one is measured, bursts every 16 s of 50-100 packets of 1500 B) and ours where it does not\n"
      "(docs/reproducing-003.md). The experiment: gridsim sweep ang2007 --out DIR.");
}

int run_bag_command(int argc, char** argv) {
  return run_study_command<BagStudy>(
      argc, argv,
      "Simulate a grid of peers (S-I, R-I or Sy-I) in which one peer, the origin, is given a bag of fine-grained\n"
      "jobs and every other peer jobs of its own. With --scheduler ba or blind the origin groups the bag as Ang\n"
      "et al. 2007 do: it asks its partners once for their MIPS and free CPUs, groups the jobs by RMI =\n"
      "MIPS x granularity over them and itself, widest path first (ba) or in their own order (blind), and hands\n"
      "each group off as one 1-CPU job with its data staged in one transfer; a group refused is decided anew\n"
      "as a plain job. With --scheduler none every job of the bag is decided alone, as in Shan et al. 2004's\n"
      "grid. Reports the bag's makespan and mean response, how much of it moved, hand-offs and messages.\n"
      "The comparison: gridsim sweep ang2007-p2p --out DIR; docs/reproducing-003.md.");
}

int run_membership_command(int argc, char** argv) {
  return run_study_command<MembershipStudy>(
      argc, argv,
      "Simulate who is in the grid, kept by gossip as gridpeer keeps it: failure detection and dissemination\n"
      "after SWIM (Das, Gupta & Motivala 2002) with Lifeguard's refinements (Dadgar, Phillips & Currey 2018).\n"
      "N members that know each other probe one member each per period; after a warm-up the run measures\n"
      "the traffic and the false suspicions over a steady window, then how long a crash takes to be detected\n"
      "and known by all, then how long a join through one member takes to be known by all. The members\n"
      "share one roster of cards and each keeps only where its view differs, so 100,000 members fit one\n"
      "process (about 420 MB, with --no-syncs). The studies over sizes and losses: gridsim sweep\n"
      "swim-membership (100 to 1,000 members) and swim-membership-large (10,000 and 100,000);\n"
      "docs/membership.md.");
}

}  // namespace gridpeer::sim
