#include "peer/io/cli/output_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace gridpeer::cli {
namespace {

/// Writes into `target` itself; throws naming `path` if it cannot.
void write_checked(const std::string& target, const std::string& path,
                   const std::function<void(std::ostream&)>& write) {
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write '" + path + "': check the directory exists and is writable");
  write(out);
  out.close();
  if (!out) throw std::runtime_error("failed while writing '" + path + "' (is the disk full?)");
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  write_output_file(path, [&text](std::ostream& out) { out << text; });
}

void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  // A device, pipe or link (`--out /dev/stdout`) is written into, not
  // replaced: renaming over it would put a file where it was.
  std::error_code error;
  const auto kind = std::filesystem::symlink_status(path, error).type();
  if (kind != std::filesystem::file_type::not_found && kind != std::filesystem::file_type::regular) {
    write_checked(path, path, write);
    return;
  }
  // One writer per process and thread at a time: their ids make the name unique.
  const std::string aside = path + ".part-" + std::to_string(::getpid()) + "-" +
                            std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  try {
    write_checked(aside, path, write);
  } catch (...) {
    std::remove(aside.c_str());
    throw;
  }
  if (std::rename(aside.c_str(), path.c_str()) != 0) {
    std::remove(aside.c_str());
    throw std::runtime_error("cannot replace '" + path + "': check the directory is writable");
  }
}

}  // namespace gridpeer::cli
