#pragma once
// A text file compiled into a binary (cmake/EmbedFiles.cmake): the built-in
// topologies and experiment files, found by name.
#include <string_view>

namespace gridpeer {

struct EmbeddedFile {
  std::string_view name;  ///< the file name without its extension
  std::string_view text;
};

}  // namespace gridpeer
