#pragma once
// gridsim's subcommands; each parses its own options and returns an exit code.
namespace gridpeer::sim {

int run_replay_command(int argc, char** argv);
int run_run_command(int argc, char** argv);
int run_coalloc_command(int argc, char** argv);
int run_allocate_command(int argc, char** argv);
int run_group_command(int argc, char** argv);
int run_bag_command(int argc, char** argv);
int run_membership_command(int argc, char** argv);
int run_sweep_command(int argc, char** argv);
int run_compare_command(int argc, char** argv);
int run_generate_command(int argc, char** argv);
int run_topology_command(int argc, char** argv);
int run_bench_awt_command(int argc, char** argv);
int run_bench_command(int argc, char** argv);
int run_fuzz_command(int argc, char** argv);
int run_plot_command(int argc, char** argv);

}  // namespace gridpeer::sim
