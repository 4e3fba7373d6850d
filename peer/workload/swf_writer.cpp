#include "peer/workload/swf_writer.hpp"

#include <cmath>

namespace gridpeer::workload {

void write_swf(std::ostream& out, std::span<const Job> jobs, const std::vector<std::string>& header_lines) {
  for (const std::string& line : header_lines) out << "; " << line << '\n';
  for (const Job& job : jobs) {
    const auto whole_seconds = [](Duration d) { return static_cast<long long>(std::ceil(to_seconds(d))); };
    out << job.id + 1 << ' ' << whole_seconds(job.submit.time_since_epoch()) << " -1 " << whole_seconds(job.run_time)
        << ' ' << job.cpus << " -1 -1 " << job.cpus << ' ' << whole_seconds(job.requested_time)
        << " -1 1 -1 -1 -1 -1 -1 -1 -1\n";
  }
}

}  // namespace gridpeer::workload
