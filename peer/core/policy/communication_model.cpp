#include "peer/core/policy/communication_model.hpp"

#include "peer/model/enum_names.hpp"

namespace gridpeer {

namespace {
constexpr EnumNames<BisectionReading, 2> kBisectionNames{{{
    {BisectionReading::half_split, "half-split"},
    {BisectionReading::half_of_processes, "half-processes"},
}}};
}  // namespace

std::string_view to_string(BisectionReading reading) {
  return kBisectionNames.name(reading);
}

double CommunicationModel::per_process_mbps(int total) const {
  if (total <= 1) return 0;
  const double n = total;
  switch (reading) {
    case BisectionReading::half_split:
      return 4.0 * (n - 1.0) * bisection_mbps / (n * n);
    case BisectionReading::half_of_processes:
      return 2.0 * bisection_mbps / n;
  }
  return 0;
}

}  // namespace gridpeer
