#include "sim/reports/plot_script.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "gridpeer/builtin_scripts.hpp"

extern char** environ;  // NOLINT: POSIX's, passed on to the interpreter

namespace gridpeer::sim {

std::string plot_python() {
  if (const char* chosen = std::getenv("GRIDPEER_PYTHON"); chosen != nullptr && *chosen != '\0') return chosen;
  if (std::filesystem::exists("/usr/bin/python3")) return "/usr/bin/python3";
  return "python3";
}

int run_plot_script(const std::vector<std::string>& arguments) {
  const auto* script = std::find_if(kBuiltinScripts.begin(), kBuiltinScripts.end(),
                                    [](const EmbeddedFile& file) { return file.name == "gridpeer_plot"; });
  if (script == kBuiltinScripts.end()) throw std::logic_error("gridpeer_plot.py is not built in");
  // A folder of its own per process, with every built-in module beside the
  // main script (a paper's figures import from it), removed when done.
  const auto folder = std::filesystem::temp_directory_path() / ("gridpeer_plot-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  for (const EmbeddedFile& file : kBuiltinScripts) {
    std::ofstream out(folder / (std::string(file.name) + ".py"));
    if (!out) throw std::runtime_error("cannot write in " + folder.string() + ": is the temporary directory writable?");
    out << file.text;
    out.close();
    if (!out) throw std::runtime_error("failed while writing in " + folder.string() + " (is the disk full?)");
  }
  const auto path = folder / "gridpeer_plot.py";
  const std::string python = plot_python();
  std::vector<std::string> words = {python, path.string()};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  int status = 127;
  if (posix_spawnp(&child, python.c_str(), nullptr, nullptr, argv.data(), environ) == 0) {
    waitpid(child, &status, 0);
    status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  return status;
}

}  // namespace gridpeer::sim
