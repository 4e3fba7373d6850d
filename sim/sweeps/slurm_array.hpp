#pragma once
// A sweep as a Slurm job array (gridsim sweep --slurm FILE): N array tasks,
// task I running `gridsim sweep ... --shard I/N` into one output folder
// that every node sees. Each run file is written aside and renamed, so shards
// never read half a file of another; the task that completes the set writes
// the report.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace gridpeer::sim {

struct SlurmArray {
  std::filesystem::path gridsim;       ///< the binary every node runs (absolute)
  std::string experiment;              ///< a built-in name, or an absolute file path
  std::filesystem::path out;           ///< absolute
  std::vector<std::string> arguments;  ///< more sweep arguments (--seeds, --set), each one word
  std::size_t tasks = 8;
  std::size_t cpus_per_task = 1;
  std::vector<std::string> sbatch_options;  ///< extra #SBATCH lines' options, e.g. --partition=long
  std::string job_name;
};

/// The sbatch script (bash), every argument quoted for the shell.
std::string slurm_array_script(const SlurmArray& array);

/// Quotes `word` for a POSIX shell: 'it'\''s'.
std::string shell_quoted(const std::string& word);

}  // namespace gridpeer::sim
