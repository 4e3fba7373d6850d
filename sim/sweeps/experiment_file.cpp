#include "sim/sweeps/experiment_file.hpp"

#include "sim/sweeps/sweep_model.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <gridpeer/builtin_experiments.hpp>

namespace gridpeer::sim {

const FigureReport* find_figure_report(std::string_view name) {
  for (const auto& report : kFigureReports) {
    if (report.name == name) return &report;
  }
  return nullptr;
}

namespace {

/// Options whose value is a path; a relative one is read from the experiment's folder.
const std::set<std::string, std::less<>> kPathOptions = {"topology", "workload", "trace-dir"};

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& what) const {
    std::string location = source_;
    if (node != nullptr && node->source().begin.line > 0) location += ":" + std::to_string(node->source().begin.line);
    throw ExperimentError(location + ": " + what);
  }

  /// A scalar as the command line would carry it.
  std::string scalar(const toml::node& node, const std::string& where) const {
    if (const auto* s = node.as_string()) return s->get();
    if (const auto* i = node.as_integer()) return std::to_string(i->get());
    if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
    if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
    fail(&node, where + ": expected a string, number or boolean");
  }

  std::string string_or(const toml::table& table, std::string_view key, std::string fallback) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    if (const auto* s = node->as_string()) return s->get();
    fail(node, std::string(key) + ": expected a string");
  }

 private:
  std::string source_;
};

std::string resolve_path(const std::string& name, const std::string& value, const std::filesystem::path& base_dir) {
  if (!kPathOptions.contains(name) || base_dir.empty() || value.starts_with("synthetic:")) return value;
  const std::filesystem::path path = value;
  if (path.is_absolute()) return value;
  const auto beside = base_dir / path;
  return std::filesystem::exists(beside) ? beside.lexically_normal().string() : value;
}

std::vector<std::uint64_t> read_seeds(const Reader& reader, const toml::table& experiment) {
  const toml::node* node = experiment.get("seeds");
  if (node == nullptr) return {1};
  std::vector<std::uint64_t> seeds;
  const auto seed_of = [&](const toml::node& item) {
    const auto* value = item.as_integer();
    if (value == nullptr || value->get() < 0) reader.fail(&item, "seeds: expected non-negative integers");
    return static_cast<std::uint64_t>(value->get());
  };
  if (const auto* list = node->as_array()) {
    for (const auto& item : *list) seeds.push_back(seed_of(item));
  } else if (const auto* range = node->as_table()) {
    // seeds = { first = 1, count = 10 }
    const toml::node* first = range->get("first");
    const toml::node* count = range->get("count");
    if (first == nullptr || count == nullptr) reader.fail(node, "seeds: expected a list or { first = F, count = N }");
    const std::uint64_t from = seed_of(*first);
    for (std::uint64_t k = 0; k < seed_of(*count); ++k) seeds.push_back(from + k);
  } else {
    reader.fail(node, "seeds: expected a list or { first = F, count = N }");
  }
  if (seeds.empty()) reader.fail(node, "seeds: at least one seed");
  if (std::set<std::uint64_t>(seeds.begin(), seeds.end()).size() != seeds.size()) {
    reader.fail(node, "seeds: a seed is listed twice");
  }
  return seeds;
}

AxisValue read_axis_value(const Reader& reader, const toml::node& node, const std::string& axis,
                          const std::string& label_format, const std::filesystem::path& base_dir) {
  AxisValue value;
  if (const auto* table = node.as_table()) {
    // { label = "si-blind", algorithm = "si", data-blind = true }
    value.options.reserve(table->size());
    for (const auto& [key, item] : *table) {
      const std::string name(key.str());
      if (name == "label") continue;
      std::string where = axis;
      where.append(".").append(name);
      value.options.emplace_back(name, resolve_path(name, reader.scalar(item, where), base_dir));
    }
    if (value.options.empty()) reader.fail(&node, "axis '" + axis + "': a value sets no option");
    value.label = reader.string_or(*table, "label", "");
    if (value.label.empty()) reader.fail(&node, "axis '" + axis + "': a value that sets options needs a label");
    return value;
  }
  const std::string text = reader.scalar(node, "axis '" + axis + "'");
  value.options.emplace_back(axis, resolve_path(axis, text, base_dir));
  value.label = fmt::format(fmt::runtime(label_format), text);
  return value;
}

ExperimentFile::Skip read_skip(const Reader& reader, const toml::table& table, const std::vector<Axis>& axes) {
  ExperimentFile::Skip skip;
  std::string names;
  for (const Axis& axis : axes) names += (names.empty() ? "" : ", ") + axis.name;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const auto axis = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == name; });
    if (axis == axes.end()) reader.fail(&node, fmt::format("[[skip]]: '{}' is not an axis ({})", name, names));
    std::set<std::string>& labels = skip.labels[name];
    const auto add = [&](const toml::node& item) {
      const std::string label = reader.scalar(item, "[[skip]]." + name);
      if (std::none_of(axis->values.begin(), axis->values.end(),
                       [&](const AxisValue& v) { return v.label == label; })) {
        reader.fail(&item, fmt::format("[[skip]]: axis '{}' has no value labelled '{}'", name, label));
      }
      labels.insert(label);
    };
    if (const auto* list = node.as_array()) {
      for (const auto& item : *list) add(item);
    } else {
      add(node);
    }
  }
  if (skip.labels.empty()) reader.fail(&table, "[[skip]]: name at least one axis");
  return skip;
}

bool skipped(const ExperimentFile& experiment, const std::map<std::string, std::string>& labels) {
  return std::any_of(experiment.skips.begin(), experiment.skips.end(), [&](const ExperimentFile::Skip& skip) {
    return std::all_of(skip.labels.begin(), skip.labels.end(),
                       [&](const auto& entry) { return entry.second.contains(labels.at(entry.first)); });
  });
}

}  // namespace

ExperimentFile parse_experiment(std::string_view text, const std::string& source,
                                const std::filesystem::path& base_dir) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    throw ExperimentError(fmt::format("{}:{}:{}: not valid TOML: {}", source, error.source().begin.line,
                                      error.source().begin.column, error.description()));
  }
  const Reader reader(source);
  for (const auto& [key, node] : root) {
    if (key != "experiment" && key != "fixed" && key != "axis" && key != "skip") {
      reader.fail(&node, "unknown section '" + std::string(key.str()) + "' (experiment, fixed, axis, skip)");
    }
  }
  ExperimentFile experiment;
  experiment.source = source;
  const toml::table* head = root["experiment"].as_table();
  if (head == nullptr) reader.fail(&root, "missing [experiment] with its name");
  for (const auto& [key, node] : *head) {
    static const std::set<std::string, std::less<>> known = {"name", "title", "seeds", "report", "model", "compare"};
    if (!known.contains(key.str())) {
      reader.fail(&node, "[experiment]: unknown key '" + std::string(key.str()) +
                             "' (name, title, seeds, report, model, compare)");
    }
  }
  experiment.name = reader.string_or(*head, "name", "");
  if (experiment.name.empty() || experiment.name.find_first_of("/\\ ") != std::string::npos) {
    reader.fail(head, "[experiment]: name must be set, without spaces or slashes");
  }
  experiment.title = reader.string_or(*head, "title", experiment.name);
  experiment.model = reader.string_or(*head, "model", "grid");
  if (!is_sweep_model(experiment.model)) {
    reader.fail(head, "[experiment]: model '" + experiment.model + "' is not one of " + sweep_model_list());
  }
  experiment.report = reader.string_or(*head, "report", "");
  if (!experiment.report.empty() && experiment.report != "shan2004" &&
      find_figure_report(experiment.report) == nullptr) {
    std::string known = "shan2004";
    for (const auto& report : kFigureReports) known += ", " + std::string(report.name);
    reader.fail(head, "[experiment]: report '" + experiment.report + "' is not one of " + known + " (or leave it out)");
  }
  experiment.seeds = read_seeds(reader, *head);
  if (const toml::node* compare = head->get("compare")) {
    const toml::table* table = compare->as_table();
    const char* shape = "[experiment]: compare must be { axis = \"NAME\", base = \"LABEL\", metrics = [...] }";
    if (table == nullptr) reader.fail(compare, shape);
    ExperimentFile::Compare parsed;
    for (const auto& [key, node] : *table) {
      if (key == "axis" || key == "base") {
        const auto named = node.value<std::string>();
        if (!named) reader.fail(&node, shape);
        (key == "axis" ? parsed.axis : parsed.base) = *named;
      } else if (key == "metrics") {
        const toml::array* list = node.as_array();
        if (list == nullptr || list->empty()) reader.fail(&node, shape);
        parsed.metrics.clear();
        for (const toml::node& item : *list) {
          const auto metric = item.value<std::string>();
          if (!metric) reader.fail(&item, shape);
          parsed.metrics.push_back(*metric);
        }
      } else {
        reader.fail(&node, "[experiment]: compare: unknown key '" + std::string(key.str()) + "' (axis, base, metrics)");
      }
    }
    if (parsed.axis.empty() || parsed.base.empty()) reader.fail(compare, shape);
    experiment.compare = std::move(parsed);
  }
  if (const toml::node* fixed = root.get("fixed")) {
    const toml::table* table = fixed->as_table();
    if (table == nullptr) reader.fail(fixed, "[fixed] must be a table of options");
    for (const auto& [key, node] : *table) {
      const std::string name(key.str());
      if (name == "seed") reader.fail(&node, "[fixed]: set seeds in [experiment] seeds = [...]");
      experiment.fixed.emplace_back(name, resolve_path(name, reader.scalar(node, "[fixed]." + name), base_dir));
    }
  }
  if (const toml::node* axes = root.get("axis")) {
    const toml::array* list = axes->as_array();
    if (list == nullptr || !list->is_array_of_tables())
      reader.fail(axes, "axes are written [[axis]] name = ... values = [...]");
    for (const auto& node : *list) {
      const toml::table& table = *node.as_table();
      Axis axis;
      axis.name = reader.string_or(table, "name", "");
      if (axis.name.empty()) reader.fail(&node, "[[axis]] needs a name");
      if (axis.name == "seed") reader.fail(&node, "seeds are not an axis: set [experiment] seeds = [...]");
      const std::string label_format = reader.string_or(table, "label", "{}");
      const toml::array* values = table["values"].as_array();
      if (values == nullptr || values->empty()) reader.fail(&node, "axis '" + axis.name + "' needs values = [...]");
      for (const auto& value : *values) {
        axis.values.push_back(read_axis_value(reader, value, axis.name, label_format, base_dir));
      }
      std::set<std::string> labels;
      for (const auto& value : axis.values) {
        if (!labels.insert(value.label).second) {
          reader.fail(&node, "axis '" + axis.name + "': two values are labelled '" + value.label + "'");
        }
      }
      for (const auto& key : table) {
        if (key.first != "name" && key.first != "values" && key.first != "label") {
          reader.fail(&key.second, "axis '" + axis.name + "': unknown key '" + std::string(key.first.str()) +
                                       "' (name, values, label)");
        }
      }
      experiment.axes.push_back(std::move(axis));
    }
  }
  if (const toml::node* skips = root.get("skip")) {
    const toml::array* list = skips->as_array();
    if (list == nullptr || !list->is_array_of_tables()) {
      reader.fail(skips, "skipped runs are written [[skip]] AXIS = \"LABEL\" (or a list of labels)");
    }
    for (const auto& node : *list) experiment.skips.push_back(read_skip(reader, *node.as_table(), experiment.axes));
  }
  if (experiment.compare) {
    const auto& compare = *experiment.compare;
    const auto axis = std::find_if(experiment.axes.begin(), experiment.axes.end(),
                                   [&](const Axis& a) { return a.name == compare.axis; });
    if (axis == experiment.axes.end()) {
      reader.fail(head->get("compare"),
                  "[experiment]: compare names axis '" + compare.axis + "', which is not an axis");
    }
    if (std::none_of(axis->values.begin(), axis->values.end(),
                     [&](const AxisValue& v) { return v.label == compare.base; })) {
      reader.fail(head->get("compare"),
                  "[experiment]: compare base '" + compare.base + "' is not a label of axis '" + compare.axis + "'");
    }
  }
  if (plan_runs(experiment).empty()) throw ExperimentError(source + ": every run is skipped");
  return experiment;
}

std::vector<std::string> builtin_experiments() {
  std::vector<std::string> names;
  names.reserve(kBuiltinExperiments.size());
  for (const auto& builtin : kBuiltinExperiments) names.emplace_back(builtin.name);
  return names;
}

ExperimentFile load_experiment(const std::string& name_or_path) {
  for (const auto& builtin : kBuiltinExperiments) {
    if (name_or_path == builtin.name) return parse_experiment(builtin.text, "built-in " + name_or_path);
  }
  std::ifstream in(name_or_path);
  if (!in) {
    std::string names;
    for (const auto& name : builtin_experiments()) names += (names.empty() ? "" : ", ") + name;
    throw ExperimentError("experiment '" + name_or_path + "' is neither a readable file nor a built-in (" + names +
                          ")");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_experiment(text.str(), name_or_path, std::filesystem::path(name_or_path).parent_path());
}

std::vector<PlannedRun> plan_runs(const ExperimentFile& experiment, const std::vector<RunOption>& overrides) {
  // Which option each axis sets, so that nothing is set twice.
  std::map<std::string, std::string> owner;
  for (const Axis& axis : experiment.axes) {
    for (const AxisValue& value : axis.values) {
      for (const auto& [name, _] : value.options) {
        const auto [it, fresh] = owner.emplace(name, axis.name);
        if (!fresh && it->second != axis.name) {
          throw ExperimentError(experiment.source + ": axes '" + it->second + "' and '" + axis.name +
                                "' both set option '" + name + "'");
        }
      }
    }
  }
  std::vector<RunOption> fixed = experiment.fixed;
  for (const auto& [name, _] : fixed) {
    if (owner.contains(name)) {
      throw ExperimentError(experiment.source + ": option '" + name + "' is both fixed and swept by axis '" +
                            owner[name] + "'");
    }
  }
  for (const auto& [name, value] : overrides) {
    if (name == "seed") throw ExperimentError("--set seed: use --seeds to choose the seeds");
    if (owner.contains(name)) {
      throw ExperimentError("--set " + name + ": the experiment sweeps it (axis '" + owner[name] + "')");
    }
    bool replaced = false;
    for (auto& entry : fixed) {
      if (entry.first == name) {
        entry.second = value;
        replaced = true;
      }
    }
    if (!replaced) fixed.emplace_back(name, value);
  }
  // The product of the axes, as an odometer: the last axis turns fastest.
  std::vector<std::size_t> digit(experiment.axes.size(), 0);
  std::vector<PlannedRun> runs;
  while (true) {
    std::map<std::string, std::string> labels;
    for (std::size_t a = 0; a < experiment.axes.size(); ++a) {
      labels[experiment.axes[a].name] = experiment.axes[a].values[digit[a]].label;
    }
    const bool skip = skipped(experiment, labels);
    for (const std::uint64_t seed : experiment.seeds) {
      if (skip) break;  // every seed of this point
      PlannedRun run;
      run.options = fixed;
      run.labels = labels;
      for (std::size_t a = 0; a < experiment.axes.size(); ++a) {
        const AxisValue& value = experiment.axes[a].values[digit[a]];
        run.options.insert(run.options.end(), value.options.begin(), value.options.end());
        run.name += value.label + "_";
      }
      run.seed = seed;
      run.options.emplace_back("seed", std::to_string(seed));
      run.name += "seed" + std::to_string(seed);
      runs.push_back(std::move(run));
    }
    std::size_t a = experiment.axes.size();
    while (a > 0 && ++digit[a - 1] == experiment.axes[a - 1].values.size()) digit[--a] = 0;
    if (a == 0) break;
  }
  return runs;
}

RunOption parse_run_option(const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw std::invalid_argument("'" + assignment + "' is not NAME=VALUE (e.g. phi=600)");
  }
  return {assignment.substr(0, equals), assignment.substr(equals + 1)};
}

std::vector<std::uint64_t> parse_seed_list(const std::string& text) {
  std::vector<std::uint64_t> seeds;
  try {
    std::size_t dash = text.find('-');
    if (dash != std::string::npos && text.find(',') == std::string::npos) {
      const auto first = std::stoull(text.substr(0, dash));
      const auto last = std::stoull(text.substr(dash + 1));
      if (last < first || last - first >= 10000) throw std::invalid_argument("range");
      for (auto seed = first; seed <= last; ++seed) seeds.push_back(seed);
    } else {
      std::size_t start = 0;
      while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        std::size_t used = 0;
        const std::string item = text.substr(start, comma - start);
        seeds.push_back(std::stoull(item, &used));
        if (used != item.size() || item.starts_with('-')) throw std::invalid_argument("item");
        start = comma + 1;
      }
    }
  } catch (const std::exception&) {
    throw std::invalid_argument("--seeds '" + text + "' is not a list (1,2,5) or a range (1-10) of seeds");
  }
  return seeds;
}

}  // namespace gridpeer::sim
