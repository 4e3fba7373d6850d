#include "sim/sweeps/slurm_array.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gridpeer::sim {

std::string shell_quoted(const std::string& word) {
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string slurm_array_script(const SlurmArray& array) {
  if (array.tasks == 0 || array.cpus_per_task == 0) {
    throw std::invalid_argument("a Slurm array needs at least one task of at least one CPU");
  }
  for (const std::string& option : array.sbatch_options) {
    if (option.find('\n') != std::string::npos || !option.starts_with("-")) {
      throw std::invalid_argument("--slurm-option '" + option + "' is not one sbatch option (e.g. --partition=long)");
    }
  }
  const std::string status =
      fmt::format("{} sweep {} --out {} --status --shards {}", shell_quoted(array.gridsim.string()),
                  shell_quoted(array.experiment), shell_quoted(array.out.string()), array.tasks);
  std::string script = "#!/bin/bash\n";
  script += fmt::format("#SBATCH --job-name={}\n", array.job_name);
  script += fmt::format("#SBATCH --array=0-{}\n", array.tasks - 1);
  script += fmt::format("#SBATCH --cpus-per-task={}\n", array.cpus_per_task);
  script += fmt::format("#SBATCH --output={}\n", (array.out / "slurm" / "%A_%a.log").string());
  for (const std::string& option : array.sbatch_options) script += "#SBATCH " + option + "\n";
  script += "#\n";
  script += "# gridsim sweep " + array.experiment + " as " + std::to_string(array.tasks) +
            " Slurm array tasks writing into " + array.out.string() + ",\n";
  script += "# a folder every node must see. Submit with: sbatch THIS_FILE\n";
  script += "# Progress, from any node: " + status + "\n";
  script += "# The task that completes the set writes the report; if tasks failed, submit\n";
  script += "# again (saved runs are kept) or assemble what is in with --report-only.\n";
  script += "set -euo pipefail\n";
  std::string command = fmt::format("exec {} sweep {} --out {}", shell_quoted(array.gridsim.string()),
                                    shell_quoted(array.experiment), shell_quoted(array.out.string()));
  for (const std::string& argument : array.arguments) command += " " + shell_quoted(argument);
  command += fmt::format(" --shard \"${{SLURM_ARRAY_TASK_ID}}/{}\" --threads \"${{SLURM_CPUS_PER_TASK:-{}}}\"\n",
                         array.tasks, array.cpus_per_task);
  return script + command;
}

}  // namespace gridpeer::sim
