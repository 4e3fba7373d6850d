#pragma once
// The Lublin-Feitelson rigid-job model (Lublin & Feitelson, JPDC 63(11), 2003):
// sizes from a two-stage uniform on log2(size) with extra mass on serial and
// power-of-two jobs; log run time hyper-gamma with a size-dependent mixing
// probability; arrivals from a gamma-distributed log inter-arrival time
// stretched by a daily cycle (48 half-hour buckets). Parameters are those the
// authors published with their model; written anew on our own Rng.
#include <array>
#include <cstddef>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

struct LublinClassParameters {
  double serial_probability;
  double power_of_two_probability;
  double size_low;                                        ///< log2 of the smallest parallel size
  double size_med_below_high;                             ///< the two uniforms meet this far below log2(largest size)
  double size_prob;                                       ///< probability of the lower uniform
  double runtime_a1, runtime_b1, runtime_a2, runtime_b2;  ///< the two gammas of log(run time)
  double runtime_pa, runtime_pb;                          ///< p(first gamma) = pa * nodes + pb, clamped to [0, 1]
  double arrival_a, arrival_b;  ///< gamma of log(inter-arrival) at rush hours (a already x ARAR)
  double cycle_a, cycle_b;      ///< gamma giving the share of arrivals per half-hour bucket
  double size_high_offset;      ///< log2(largest size) = log2(system size) + this
};

struct LublinConfig {
  int max_nodes = 128;  ///< system size; its log2 is the model's UHi
  /// true: batch and interactive classes, each with its own parameters;
  /// false: the model's single "whole sample" class (PWA's lublin_256 uses it).
  bool separate_classes = false;
  /// Multiplies the arrival gamma's shape (the model's AARR knob, 004's SL):
  /// below 1 means more load.
  double arrival_shape_factor = 1.0;
  /// Requested time = run time x this (the model has no estimates).
  double estimate_factor = 1.0;
};

LublinClassParameters lublin_whole_sample();
LublinClassParameters lublin_batch();
LublinClassParameters lublin_interactive();

class LublinGenerator {
 public:
  LublinGenerator(LublinConfig config, Rng rng);

  /// The next job in arrival order (id, submit, cpus, run and requested time).
  Job next();
  std::vector<Job> generate(std::size_t count);
  /// 0 = interactive, 1 = batch, of the last job returned.
  [[nodiscard]] int last_class() const { return last_class_; }

 private:
  struct ArrivalStream {
    LublinClassParameters parameters{};
    std::array<double, 48> bucket_weight{};
    int bucket = 0;
    double points = 0.0;
    double remainder = 0.0;
    double next_arrival = 0.0;  ///< seconds from the start
    bool enabled = true;
  };

  void init_stream(ArrivalStream& stream, const LublinClassParameters& parameters);
  void advance_stream(ArrivalStream& stream);
  int draw_nodes(const LublinClassParameters& parameters);
  double draw_run_time(const LublinClassParameters& parameters, int nodes);

  LublinConfig config_;
  Rng rng_;
  double size_high_;
  std::array<ArrivalStream, 2> streams_{};  // [0] interactive, [1] batch
  JobId next_id_ = 0;
  int last_class_ = 0;
};

}  // namespace gridpeer::workload
