// gridctl compose: a docker-compose testbed directory from a topology.
#include <sys/stat.h>

#include <fmt/format.h>

#include <cxxopts.hpp>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "peer/client/commands.hpp"
#include "peer/client/credential_files.hpp"
#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"
#include "peer/io/compose/compose_plan.hpp"

namespace gridpeer::client {
namespace {

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  cli::write_output_file(path.string(), text);
}

}  // namespace

int compose_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridctl compose",
      "Write a docker-compose testbed for a topology into a directory: one gridpeer container per server, one "
      "internal network per site plus the WAN, each peer shaping its interfaces with tc to the topology's site and "
      "WAN bandwidths and latencies, and a control container for gridctl. The containers speak mutual TLS: the "
      "directory gets a grid CA of its own (tls/), a certificate per peer and an operator's for the control "
      "container. docker/testbed drives it; docker/README.md explains the layout.");
  options.add_options()("topology", "topology file", cxxopts::value<std::string>())(
      "sites", "site split of the topology", cxxopts::value<std::string>())(
      "network", "network setting of the topology: the shaping and the peers' ADT estimates",
      cxxopts::value<std::string>())("out", "directory to write (created; its files are replaced)",
                                     cxxopts::value<std::string>())(
      "image", "the gridpeer image (docker/Dockerfile)",
      cxxopts::value<std::string>()->default_value("gridpeer:latest"))(
      "trace-dir", "host directory of trace files, mounted read-only at /traces in the control container",
      cxxopts::value<std::string>())("port", "port every peer listens on",
                                     cxxopts::value<int>()->default_value("7400"))(
      "algorithm", "gridpeer --algorithm", cxxopts::value<std::string>()->default_value("si"))(
      "time-scale", "gridpeer --time-scale: virtual seconds per real second",
      cxxopts::value<std::string>()->default_value("1000"))(
      "peer-arg", "one more argument for every gridpeer (repeat; e.g. --peer-arg=--data-scale=1)",
      cxxopts::value<std::vector<std::string>>())(
      "journal",
      "each peer keeps a journal (gridpeer --state-dir) on a docker volume of its own, so that a container killed "
      "and started again comes back with every job it had accepted (docs/durability.md); each sync costs real time, "
      "which the time scale multiplies into virtual time")("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  if (args.count("topology") == 0U || args.count("out") == 0U) {
    throw std::invalid_argument("--topology and --out are required (see --help)");
  }
  topology::TopologySelection selection;
  if (args.count("sites") != 0U) selection.split = args["sites"].as<std::string>();
  if (args.count("network") != 0U) selection.network = args["network"].as<std::string>();
  const std::filesystem::path topology_file = args["topology"].as<std::string>();
  const topology::Topology grid = topology::load_topology(topology_file, selection);

  const std::filesystem::path out = std::filesystem::absolute(args["out"].as<std::string>());
  std::filesystem::create_directories(out / "results");
  // The control container runs gridctl as the image's unprivileged user.
  std::filesystem::permissions(out / "results", std::filesystem::perms::all);
  std::filesystem::copy_file(topology_file, out / "topology.toml", std::filesystem::copy_options::overwrite_existing);

  testbed::ComposeOptions compose;
  compose.image = args["image"].as<std::string>();
  compose.journal = args.count("journal") != 0U;
  compose.host_dir = out.string();
  if (args.count("trace-dir") != 0U) {
    compose.trace_dir = std::filesystem::absolute(args["trace-dir"].as<std::string>()).string();
  }
  compose.port = args["port"].as<int>();
  compose.peer_args = {"--algorithm", args["algorithm"].as<std::string>(), "--time-scale",
                       args["time-scale"].as<std::string>()};
  if (args.count("peer-arg") != 0U) {
    for (const auto& extra : args["peer-arg"].as<std::vector<std::string>>()) compose.peer_args.push_back(extra);
  }
  const testbed::ComposePlan plan = testbed::plan_compose(grid, compose);
  write_file(out / "docker-compose.yml", testbed::compose_yaml(plan, compose));

  // The testbed's own grid CA, new each time (a testbed is thrown away): a
  // certificate per peer, named by its server, and an operator's for the
  // control container. The containers copy theirs for their unprivileged
  // user (docker/entrypoint); the CA's key stays here, on the host.
  const std::filesystem::path tls = out / "tls";
  std::filesystem::create_directories(tls);
  const transport::Credentials ca = transport::create_ca(grid.name, 30);
  write_text_file(tls / "ca-key.pem", ca.key_pem, true, true);
  write_text_file(tls / "ca.pem", ca.certificate_pem, false, true);
  for (const testbed::PeerPlan& peer : plan.peers) {
    write_credentials(tls, peer.server, transport::issue_certificate(ca, peer.server, transport::Role::peer, 30), true);
  }
  write_credentials(tls, testbed::kControlCertificate,
                    transport::issue_certificate(ca, testbed::kControlCertificate, transport::Role::operator_role, 30),
                    true);

  // out/gridctl COMMAND [options]: gridctl in the control container, already
  // told the topology and every peer's WAN address.
  std::string wrapper =
      "#!/bin/sh\n# Generated by gridctl compose: runs gridctl in the testbed's control container.\n"
      "set -e\ncd \"$(dirname \"$0\")\"\ncommand=${1:?usage: $0 COMMAND [options]}\nshift\n"
      "exec ${COMPOSE:-docker-compose} exec -T -u gridpeer control gridctl \"$command\" --topology "
      "/testbed/topology.toml "
      "--sites " +
      shell_quote(grid.split);
  for (const std::string& arg : plan.control_peer_args) wrapper += " " + shell_quote(arg);
  wrapper += " \"$@\"\n";
  write_file(out / "gridctl", wrapper);
  std::filesystem::permissions(out / "gridctl", std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                                    std::filesystem::perms::group_exec |
                                                    std::filesystem::perms::others_read |
                                                    std::filesystem::perms::others_exec);
  // For docker/testbed (sourced by sh): the shaping it checks against, and
  // which peer is where.
  std::string env = "# Generated by gridctl compose.\nTOPOLOGY_NAME=" + shell_quote(grid.name) +
                    "\nSPLIT=" + shell_quote(grid.split) + "\nNETWORK=" + shell_quote(grid.network_name) +
                    "\nSITE_MBPS=" + fmt::format("{}", grid.network.site_mbps) +
                    "\nWAN_MBPS=" + fmt::format("{}", grid.network.wan_mbps) +
                    "\nSITES=" + std::to_string(grid.site_count) + "\n# server:service:site, in server order\nPEERS='";
  for (const testbed::PeerPlan& peer : plan.peers) {
    env +=
        (&peer == &plan.peers.front() ? "" : " ") + peer.server + ":" + peer.service + ":" + std::to_string(peer.site);
  }
  write_file(out / "testbed.env", env + "'\n");
  std::cout << "wrote " << (out / "docker-compose.yml").string() << ": " << plan.peers.size() << " peers in "
            << grid.site_count << " sites (split " << grid.split << "), network " << grid.network_name << " (site "
            << grid.network.site_mbps << " Mb/s, WAN " << grid.network.wan_mbps << " Mb/s)\n";
  return 0;
}

}  // namespace gridpeer::client
