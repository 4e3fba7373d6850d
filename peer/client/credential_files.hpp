#pragma once
// The files of a grid's certificates, as gridctl ca and gridctl compose
// write them: DIR/ca.pem and ca-key.pem, DIR/NAME.pem and NAME-key.pem.
// Keys are created readable by their owner only, and nothing is replaced
// unless asked.
#include <filesystem>
#include <string>

#include "peer/transport/certificates.hpp"

namespace gridpeer::client {

std::string read_text_file(const std::filesystem::path& path);
/// Writes `text`; a secret is created mode 0600 before anything is written.
/// Throws std::runtime_error if the file exists and `force` is false.
void write_text_file(const std::filesystem::path& path, const std::string& text, bool secret, bool force);
/// DIR/NAME.pem and DIR/NAME-key.pem.
void write_credentials(const std::filesystem::path& dir, const std::string& name, const transport::Credentials& credentials,
                       bool force);

}  // namespace gridpeer::client
