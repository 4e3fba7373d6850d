#include "peer/client/credential_files.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gridpeer::client {

namespace fs = std::filesystem;

std::string read_text_file(const fs::path& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read " + path.string() + " (made by gridctl ca init?)");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_text_file(const fs::path& path, const std::string& text, bool secret, bool force) {
  if (fs::exists(path) && !force) {
    throw std::runtime_error(path.string() + " exists; pass --force to replace it");
  }
  {
    std::ofstream file(path, std::ios::trunc);
    if (!file) throw std::runtime_error("cannot write " + path.string());
  }
  if (secret) fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  std::ofstream file(path, std::ios::trunc);
  file << text;
  file.close();
  if (!file) throw std::runtime_error("failed while writing " + path.string() + " (is the disk full?)");
}

void write_credentials(const fs::path& dir, const std::string& name, const transport::Credentials& credentials,
                       bool force) {
  write_text_file(dir / (name + "-key.pem"), credentials.key_pem, true, force);
  write_text_file(dir / (name + ".pem"), credentials.certificate_pem, false, force);
}

}  // namespace gridpeer::client
