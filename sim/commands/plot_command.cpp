// gridsim plot: the figures of a study (sim/plot/gridpeer_plot.py, built in).
#include <iostream>
#include <string>
#include <vector>

#include "sim/commands/commands.hpp"
#include "sim/reports/plot_script.hpp"

namespace gridpeer::sim {

int run_plot_command(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.empty()) arguments.emplace_back("--help");
  const int status = run_plot_script(arguments);
  if (status == 127) {
    std::cerr << "gridsim plot: could not start " << plot_python()
              << "; install Debian's python3, python3-pandas and python3-matplotlib (scripts/setup does), or "
                 "point GRIDPEER_PYTHON at an interpreter that has them\n";
  }
  return status;
}

}  // namespace gridpeer::sim
