#include "sim/sweeps/sweep_model.hpp"

#include <stdexcept>

#include "sim/studies/study_definitions.hpp"

namespace gridpeer::sim {
namespace {

template <Study S>
struct LoadedWorkload final : SweepWorkload {
  explicit LoadedWorkload(typename S::Workload loaded) : value(std::move(loaded)) {}
  typename S::Workload value;
};

/// A sweep's run of study S: the definition's spec, identity and workload.
template <Study S>
class StudyRun final : public SweepRun {
 public:
  StudyRun(typename S::Spec spec, nlohmann::json identity)
      : spec_(std::move(spec)), identity_(std::move(identity)), workload_key_(S::workload_key(spec_)) {}
  [[nodiscard]] const nlohmann::json& identity() const override { return identity_; }
  [[nodiscard]] std::string workload_key() const override { return workload_key_; }
  [[nodiscard]] std::shared_ptr<const SweepWorkload> load_workload() const override {
    return std::make_shared<const LoadedWorkload<S>>(S::load(spec_));
  }
  [[nodiscard]] std::vector<std::string> workload_warnings(const SweepWorkload& workload) const override {
    return S::warnings(loaded(workload));
  }
  [[nodiscard]] nlohmann::json run(const SweepWorkload& workload) const override {
    nlohmann::json json = S::json(spec_, S::run(spec_, loaded(workload), RunHooks{}), true);
    if constexpr (requires { S::trim_for_sweep(json); }) S::trim_for_sweep(json);
    return json;
  }

 private:
  /// The sweep shares a workload only between runs of one key, so of one study.
  static const typename S::Workload& loaded(const SweepWorkload& workload) {
    const auto* mine = dynamic_cast<const LoadedWorkload<S>*>(&workload);
    if (mine == nullptr) throw std::logic_error(std::string(S::model) + ": a workload of another kind of study");
    return mine->value;
  }

  typename S::Spec spec_;
  nlohmann::json identity_;
  std::string workload_key_;
};

template <Study S>
class StudyModel final : public SweepModel {
 public:
  [[nodiscard]] std::string_view command() const override { return S::command; }
  void add_options(cxxopts::Options& options) const override { S::add_options(options); }
  [[nodiscard]] std::unique_ptr<SweepRun> resolve(const cxxopts::ParseResult& args, FileHashes& hashes) const override {
    typename S::Spec spec = S::spec_from(args);
    nlohmann::json identity = S::identity(spec, args, hashes);
    return std::make_unique<StudyRun<S>>(std::move(spec), std::move(identity));
  }
  [[nodiscard]] const std::vector<std::string>& metrics() const override { return S::metrics(); }
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> report_columns() const override {
    return S::columns();
  }
};

template <Study S>
void make_if_named(const std::string& name, std::unique_ptr<SweepModel>& model) {
  if (!model && name == S::model) model = std::make_unique<StudyModel<S>>();
}

template <Study... Studies>
struct Registry {
  static std::unique_ptr<SweepModel> make(const std::string& name) {
    std::unique_ptr<SweepModel> model;
    (make_if_named<Studies>(name, model), ...);
    return model;
  }
  static std::string list() {
    std::string known;
    ((known += (known.empty() ? "" : ", ") + std::string(Studies::model) + " (" + std::string(Studies::command) + ")"),
     ...);
    return known;
  }
};
using Studies = Registry<GridStudy, CoallocStudy, AllocationStudy, GroupingStudy, BagStudy, MembershipStudy>;

}  // namespace

std::unique_ptr<SweepModel> make_sweep_model(const std::string& name) {
  auto model = Studies::make(name);
  if (!model) throw std::invalid_argument("no sweep model '" + name + "': " + Studies::list());
  return model;
}

bool is_sweep_model(const std::string& name) {
  return Studies::make(name) != nullptr;
}

std::string sweep_model_list() {
  return Studies::list();
}

}  // namespace gridpeer::sim
