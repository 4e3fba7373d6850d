#include "sim/driver/meta_run.hpp"

#include <stdexcept>

namespace gridpeer::sim {

void run_meta(Scheduler& scheduler, std::span<const Job> jobs, const std::function<void(MetaStep&)>& observe) {
  MetaStep step;
  const auto input = [&](TimePoint at, bool submission) {
    step.at = at;
    step.submission = submission;
    step.outputs.clear();
    scheduler.take_outputs_into(step.outputs);
    observe(step);
  };
  TimePoint last{};
  for (const Job& job : jobs) {
    if (job.submit < last) throw std::invalid_argument("a meta-scheduler run takes its jobs sorted by submit time");
    last = job.submit;
    for (TimePoint next = scheduler.next_deadline(); next <= job.submit; next = scheduler.next_deadline()) {
      step.queued_before = scheduler.undecided_jobs();
      scheduler.advance(next);
      input(next, false);
    }
    step.queued_before = scheduler.undecided_jobs();
    scheduler.submit(job, job.submit);
    input(job.submit, true);
  }
  for (TimePoint next = scheduler.next_deadline(); next != kNever; next = scheduler.next_deadline()) {
    step.queued_before = scheduler.undecided_jobs();
    scheduler.advance(next);
    input(next, false);
  }
}

}  // namespace gridpeer::sim
