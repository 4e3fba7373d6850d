# Enforces DESIGN.md §2: the scheduling core and the workload library are pure
# state machines. They may not include networking, Asio, threads, file streams,
# or <random>, nor name a wall clock or a global random source. Used at
# configure time (CMakeLists.txt) and as a CTest test (cmake -P this file).
set(GRIDPEER_SANS_IO_FORBIDDEN
  "#include[ \t]*<(boost/asio|asio|sys/socket\\.h|netinet/|arpa/|thread|fstream|random|cstdio|stdio\\.h|ctime|time\\.h)"
  "(system_clock|steady_clock|high_resolution_clock|random_device|std::rand[ \t]*\\(|srand[ \t]*\\(|getenv[ \t]*\\()")

function(gridpeer_check_sans_io)
  set(offences "")
  foreach(dir IN LISTS ARGN)
    file(GLOB_RECURSE sources "${dir}/*.hpp" "${dir}/*.cpp")
    foreach(source IN LISTS sources)
      file(STRINGS "${source}" lines)
      set(line_number 0)
      foreach(line IN LISTS lines)
        math(EXPR line_number "${line_number} + 1")
        foreach(pattern IN LISTS GRIDPEER_SANS_IO_FORBIDDEN)
          if(line MATCHES "${pattern}")
            string(APPEND offences "\n  ${source}:${line_number}: ${line}")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  if(offences)
    message(FATAL_ERROR "sans-I/O rule broken (DESIGN.md §2): the core and workloads may not "
                        "use I/O, clocks, threads or global randomness:${offences}")
  endif()
endfunction()

# Script mode: cmake -DDIRS="a;b" -P CheckSansIo.cmake
if(CMAKE_SCRIPT_MODE_FILE AND DIRS)
  gridpeer_check_sans_io(${DIRS})
  message(STATUS "sans-I/O check passed for ${DIRS}")
endif()
