# Enforces the layers of docs/architecture.md at configure time (CMakeLists.txt)
# and as the CTest test `layer_rules` (cmake -DSOURCE_DIR=... -P this file):
#
#  1. sans-I/O (docs/architecture.md, "Layers"): the model, the network model, the core, the
#     workloads and protocol/ may not include networking, Asio, threads, file
#     streams, C stdio or <random>, nor name a wall clock or a global random
#     source;
#  2. dependencies point one way: each directory may include only the project
#     paths its rule allows (the most specific directory's rule applies).
#     protocol/ builds on peer/model only; peer/core/p2p and peer/core/meta never
#     include each other; sim/ never includes the Asio side, nor it sim/.
set(GRIDPEER_SANS_IO_DIRS peer/model peer/network peer/core peer/workload protocol)
set(GRIDPEER_SANS_IO_FORBIDDEN
  "#include[ \t]*<(boost/asio|asio|sys/socket\\.h|netinet/|arpa/|thread|fstream|random|cstdio|stdio\\.h|ctime|time\\.h)"
  "(system_clock|steady_clock|high_resolution_clock|random_device|std::rand[ \t]*\\(|srand[ \t]*\\(|getenv[ \t]*\\()")

# directory | what its project includes must match
set(_core_base "peer/model/|peer/network/|protocol/messages\\.hpp|peer/core/[a-z_]+\\.hpp|peer/core/(local|policy)/")
set(GRIDPEER_LAYER_RULES
  "peer/model|^peer/model/"
  "protocol|^(peer/model/|protocol/)"
  "peer/network|^(peer/model/|peer/network/)"
  "peer/workload|^(peer/model/|peer/workload/)"
  "peer/core/local|^(peer/model/|peer/core/local/)"
  "peer/core/policy|^(${_core_base})"
  "peer/core/p2p|^(${_core_base}|peer/core/p2p/)"
  "peer/core/meta|^(${_core_base}|peer/core/meta/)"
  "peer/core/membership|^(peer/model/|protocol/membership\\.hpp|peer/core/timer_table\\.hpp|peer/core/membership/)"
  "peer/core|^(${_core_base})"
  "peer/io|^(peer/model/|peer/network/|peer/core/|peer/workload/|peer/io/|protocol/messages\\.hpp)"
  "peer/journal|^(peer/model/|peer/core/durable\\.hpp|protocol/|peer/io/json/|peer/journal/)"
  "peer/transport|^(peer/model/|peer/io/|protocol/|peer/transport/)"
  "peer/daemon|^(peer/model/|peer/network/|peer/core/|peer/io/|protocol/|peer/transport/|peer/journal/|peer/daemon/)"
  "peer/client|^(peer/model/|peer/network/|peer/core/|peer/workload/|peer/io/|protocol/|peer/transport/|peer/client/)"
  "sim/driver|^(peer/model/|peer/network/|peer/core/|peer/workload/|peer/io/|protocol/|sim/driver/)"
  "sim/studies|^(peer/model/|peer/network/|peer/core/|peer/workload/|peer/io/|protocol/|sim/driver/|sim/studies/)"
  "sim/reports|^(peer/model/|peer/network/|peer/core/|peer/workload/|peer/io/|protocol/|sim/driver/|sim/studies/|sim/reports/)"
  "sim|^(peer/model/|peer/network/|peer/core/|peer/workload/|peer/io/|protocol/|sim/)")

function(_gridpeer_sources out dir)
  file(GLOB_RECURSE sources "${dir}/*.hpp" "${dir}/*.cpp")
  set(${out} "${sources}" PARENT_SCOPE)
endfunction()

function(gridpeer_check_layers source_dir)
  set(offences "")
  # 1. sans-I/O
  foreach(dir IN LISTS GRIDPEER_SANS_IO_DIRS)
    _gridpeer_sources(sources "${source_dir}/${dir}")
    foreach(source IN LISTS sources)
      file(STRINGS "${source}" lines)
      set(line_number 0)
      foreach(line IN LISTS lines)
        math(EXPR line_number "${line_number} + 1")
        foreach(pattern IN LISTS GRIDPEER_SANS_IO_FORBIDDEN)
          if(line MATCHES "${pattern}")
            string(APPEND offences "\n  ${source}:${line_number}: sans-I/O code uses I/O, a clock or global randomness: ${line}")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  # 2. one-way dependencies: the longest matching directory's rule applies
  _gridpeer_sources(all "${source_dir}/peer")
  _gridpeer_sources(more "${source_dir}/protocol")
  list(APPEND all ${more})
  _gridpeer_sources(more "${source_dir}/sim")
  list(APPEND all ${more})
  foreach(source IN LISTS all)
    file(RELATIVE_PATH relative "${source_dir}" "${source}")
    set(rule "")
    set(rule_dir "")
    foreach(entry IN LISTS GRIDPEER_LAYER_RULES)
      string(FIND "${entry}" "|" bar)
      string(SUBSTRING "${entry}" 0 ${bar} dir)
      math(EXPR after "${bar} + 1")
      string(SUBSTRING "${entry}" ${after} -1 allowed)
      string(LENGTH "${dir}" dir_length)
      string(LENGTH "${rule_dir}" rule_length)
      if(relative MATCHES "^${dir}/" AND dir_length GREATER rule_length)
        set(rule "${allowed}")
        set(rule_dir "${dir}")
      endif()
    endforeach()
    if(rule STREQUAL "")
      continue()
    endif()
    file(STRINGS "${source}" includes REGEX "^[ \t]*#include[ \t]*\"(peer|protocol|sim)/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#include[ \t]*\"([^\"]+)\".*" "\\1" included "${line}")
      if(NOT included MATCHES "${rule}")
        string(APPEND offences "\n  ${relative}: ${rule_dir}/ may not include \"${included}\"")
      endif()
    endforeach()
  endforeach()
  if(offences)
    message(FATAL_ERROR "layer rules broken (docs/architecture.md):${offences}")
  endif()
endfunction()

# Script mode: cmake -DSOURCE_DIR=... -P CheckLayers.cmake
if(CMAKE_SCRIPT_MODE_FILE AND SOURCE_DIR)
  gridpeer_check_layers("${SOURCE_DIR}")
  message(STATUS "layer rules hold in ${SOURCE_DIR}")
endif()
