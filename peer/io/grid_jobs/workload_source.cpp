#include "peer/io/grid_jobs/workload_source.hpp"

#include <cmath>
#include <stdexcept>

#include "peer/io/traces/trace_file.hpp"
#include "peer/model/rng.hpp"
#include "peer/workload/feitelson96.hpp"
#include "peer/workload/lublin.hpp"
#include "peer/workload/poisson_model.hpp"
#include "peer/workload/swf_checks.hpp"

namespace gridpeer::grid_jobs {

bool is_synthetic_model(const std::string& source) {
  return source == "synthetic" || source == "lublin" || source == "feitelson96" || source == "poisson";
}

namespace {

Workload load_unshaped(const WorkloadRequest& request) {
  Workload result;
  if (is_synthetic_model(request.source)) {
    Rng rng(request.seed);
    const std::string n = std::to_string(request.synthetic_jobs);
    if (request.source == "feitelson96") {
      workload::Feitelson96Config config;
      config.max_nodes = request.max_cpus;
      result.jobs = workload::Feitelson96Generator(config, rng).generate(request.synthetic_jobs);
      result.description =
          "Feitelson96-style model, " + n + " jobs, up to " + std::to_string(request.max_cpus) + " CPUs";
    } else if (request.source == "poisson") {
      workload::PoissonModelConfig config;
      config.max_cpus = std::min(config.max_cpus, request.max_cpus);
      config.min_cpus = std::min(config.min_cpus, config.max_cpus);
      result.jobs = workload::generate_poisson_jobs(config, request.synthetic_jobs, rng);
      result.description = "Poisson/exponential/uniform model (Jones et al.), " + n + " jobs";
    } else {
      workload::LublinConfig config;
      config.max_nodes = request.max_cpus;
      config.arrival_shape_factor = request.arrival_factor;
      result.jobs = workload::LublinGenerator(config, rng).generate(request.synthetic_jobs);
      result.description =
          "Lublin-Feitelson 2003 model, " + n + " jobs, up to " + std::to_string(request.max_cpus) + " CPUs";
    }
    const std::string name = (request.source == "synthetic" ? std::string("lublin") : request.source) + "-seed" +
                             std::to_string(request.seed);
    const auto shared_name = std::make_shared<const std::string>(name);
    result.sources.reserve(result.jobs.size());
    for (std::size_t k = 0; k < result.jobs.size(); ++k) {
      result.sources.push_back({shared_name, static_cast<std::int64_t>(k) + 1});
    }
    return result;
  }
  const auto path = traces::resolve_trace_file(request.source, traces::resolve_trace_dir(request.trace_dir));
  const workload::SwfTrace trace = traces::load_swf_file(path, {request.skip_malformed});
  workload::SwfConversionOptions options;
  options.window = request.window;
  options.missing_estimates = request.estimates;
  options.estimate_seed = Rng(request.seed).fork(0x657374696d617465ULL).next_u64();  // "estimate"
  std::vector<std::size_t> records;
  result.jobs = workload::jobs_from_swf(trace.records, trace.header, options, &result.conversion, &records);
  const std::string file = path.filename().string();
  result.warnings = workload::check_swf_log(trace.records, file);
  for (std::string& warning :
       workload::check_swf_window(trace.records, trace.header, file, request.window, result.conversion)) {
    result.warnings.push_back(std::move(warning));
  }
  const auto shared_file = std::make_shared<const std::string>(file);
  result.sources.reserve(records.size());
  for (const std::size_t record : records) {
    result.sources.push_back({shared_file, trace.records[record].job_number});
  }
  result.description = path.filename().string() + ": " + std::to_string(result.jobs.size()) + " of " +
                       std::to_string(trace.records.size()) + " jobs";
  result.provenance = trace.header.lines;
  result.skipped_lines = trace.skipped_lines;
  result.max_procs = trace.header.max_procs;
  return result;
}

}  // namespace

void check_shaping(const std::string& source, double load_factor, double arrival_factor) {
  if (!(load_factor > 0) || !std::isfinite(load_factor)) throw std::invalid_argument("--load-factor must be > 0");
  if (!(arrival_factor > 0) || !std::isfinite(arrival_factor)) {
    throw std::invalid_argument("--arrival-factor must be > 0");
  }
  if (arrival_factor != 1.0 && source != "lublin" && source != "synthetic") {
    throw std::invalid_argument("--arrival-factor is the Lublin model's; for --workload " + source +
                                " scale the load with --load-factor");
  }
}

Workload load_workload(const WorkloadRequest& request) {
  check_shaping(request.source, request.load_factor, request.arrival_factor);
  Workload result = load_unshaped(request);
  if (request.estimates && is_synthetic_model(request.source)) {
    Rng rng = Rng(request.seed).fork(0x657374696d617465ULL);  // "estimate": apart from the model's own draws
    workload::apply_estimates(result.jobs, *request.estimates, rng);
  }
  workload::scale_load(result.jobs, request.load_factor);
  return result;
}

}  // namespace gridpeer::grid_jobs
