#pragma once
// The figures' Python script (sim/plot/gridpeer_plot.py), built into gridsim
// and run with Debian's python3 (pandas, matplotlib): `gridsim plot` and the
// end of every sweep.
#include <string>
#include <vector>

namespace gridpeer::sim {

/// The interpreter: $GRIDPEER_PYTHON, else /usr/bin/python3 if present, else
/// python3 on the PATH.
std::string plot_python();

/// Runs the built-in script with `arguments` (its stdout and stderr are
/// gridsim's); returns its exit status (127: the interpreter did not start).
int run_plot_script(const std::vector<std::string>& arguments);

}  // namespace gridpeer::sim
