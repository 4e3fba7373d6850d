#include "peer/io/compose/compose_plan.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <set>
#include <stdexcept>

namespace gridpeer::testbed {
namespace {

constexpr int kFirstHost = 10;  // .1 is the bridge; leave a few for the control container
constexpr int kMaxPerSite = 250 - kFirstHost;
constexpr int kMaxPeers = 60'000;

std::string site_address(int site, int host) {
  return "10." + std::to_string(201 + site / 256) + "." + std::to_string(site % 256) + "." + std::to_string(host);
}

std::string wan_address(int index) {
  const int host = index + kFirstHost;
  return "10.200." + std::to_string(host / 256) + "." + std::to_string(host % 256);
}

/// NAME=ADDRESS:PORT, as gridpeer and gridctl take --peer.
std::string endpoint_arg(const std::string& server, const std::string& address, const std::string& port) {
  std::string arg = server;
  arg += '=';
  arg += address;
  arg += ':';
  arg += port;
  return arg;
}

std::string format_number(double value) {
  // Shortest text that reads back the same: 800, 0.1, 2.5.
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::string service_name(const std::string& server) {
  std::string name = "peer-";
  for (const char c : server) {
    const auto u = static_cast<unsigned char>(c);
    name += std::isalnum(u) != 0 ? static_cast<char>(std::tolower(u)) : '-';
  }
  return name;
}

ComposePlan plan_compose(const topology::Topology& grid, const ComposeOptions& options) {
  if (grid.routed) {
    throw std::invalid_argument(grid.name +
                                " has a routed network; a testbed shapes site networks and WAN links only " +
                                "(give a topology with [networks.*])");
  }
  if (grid.servers.size() > static_cast<std::size_t>(kMaxPeers)) {
    throw std::invalid_argument("a testbed holds at most " + std::to_string(kMaxPeers) + " peers; " + grid.name +
                                " has " + std::to_string(grid.servers.size()));
  }
  ComposePlan plan;
  for (int s = 0; s < grid.site_count; ++s) {
    plan.networks.push_back(
        {"site" + std::to_string(s), "10." + std::to_string(201 + s / 256) + "." + std::to_string(s % 256) + ".0/24"});
  }
  plan.networks.push_back({"wan", "10.200.0.0/16"});
  plan.control_address = "10.200.0.2";

  std::vector<int> in_site(static_cast<std::size_t>(grid.site_count), 0);
  std::set<std::string> services;
  for (std::size_t i = 0; i < grid.servers.size(); ++i) {
    const ServerSpec& spec = grid.servers[i].spec;
    PeerPlan peer;
    peer.server = spec.name;
    peer.service = service_name(spec.name);
    if (!services.insert(peer.service).second) {
      throw std::invalid_argument("servers '" + spec.name + "' and another map to the same container name '" +
                                  peer.service + "'; rename one in " + grid.source);
    }
    peer.site = spec.site;
    int& k = in_site.at(static_cast<std::size_t>(spec.site));
    if (k == kMaxPerSite) {
      throw std::invalid_argument("site " + std::to_string(spec.site) + " of " + grid.name + " has more than " +
                                  std::to_string(kMaxPerSite) + " servers; a testbed site network holds no more");
    }
    peer.site_address = site_address(spec.site, kFirstHost + k++);
    peer.wan_address = wan_address(static_cast<int>(i));
    peer.shaping = {{peer.site_address, grid.network.site_mbps, to_seconds(grid.network.site_latency) * 1000},
                    {peer.wan_address, grid.network.wan_mbps, to_seconds(grid.network.wan_latency) * 1000}};
    plan.peers.push_back(std::move(peer));
  }
  const std::string port = std::to_string(options.port);
  for (PeerPlan& peer : plan.peers) {
    peer.command = {"gridpeer",
                    "--topology",
                    options.topology_in_container,
                    "--sites",
                    grid.split,
                    "--network",
                    grid.network_name,
                    "--id",
                    peer.server,
                    "--listen",
                    "0.0.0.0:" + port,
                    "--tls-dir",
                    options.tls_in_container};
    if (options.journal) peer.command.insert(peer.command.end(), {"--state-dir", options.state_in_container});
    for (const PeerPlan& other : plan.peers) {
      // Same site: the site network; else the WAN, whose shaping is the WAN's.
      // Its own entry is the address it gives of itself (a peer that joins
      // the running testbed reaches it on the WAN).
      const std::string& address = &other == &peer           ? other.wan_address
                                   : other.site == peer.site ? other.site_address
                                                             : other.wan_address;
      peer.command.push_back("--peer");
      peer.command.push_back(endpoint_arg(other.server, address, port));
    }
    peer.command.insert(peer.command.end(), options.peer_args.begin(), options.peer_args.end());
  }
  for (const PeerPlan& peer : plan.peers) {
    plan.control_peer_args.push_back("--peer");
    plan.control_peer_args.push_back(endpoint_arg(peer.server, peer.wan_address, port));
  }
  plan.control_peer_args.insert(plan.control_peer_args.end(),
                                {"--tls-dir", options.tls_in_container, "--cert", kControlCertificate});
  return plan;
}

std::string compose_yaml(const ComposePlan& plan, const ComposeOptions& options) {
  YAML::Emitter out;
  out << YAML::Comment("Generated by gridctl compose; regenerate rather than edit (docker/README.md).");
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << "2.4";
  out << YAML::Key << "services" << YAML::Value << YAML::BeginMap;
  for (const PeerPlan& peer : plan.peers) {
    out << YAML::Key << peer.service << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "image" << YAML::Value << options.image;
    out << YAML::Key << "hostname" << YAML::Value << peer.service;
    // Root only long enough to shape its interfaces; the entrypoint then runs
    // gridpeer as the image's unprivileged user.
    out << YAML::Key << "user" << YAML::Value << YAML::DoubleQuoted << "0";
    out << YAML::Key << "init" << YAML::Value << true;
    out << YAML::Key << "cap_add" << YAML::Value << YAML::Flow << YAML::BeginSeq << "NET_ADMIN" << YAML::EndSeq;
    out << YAML::Key << "entrypoint" << YAML::Value << YAML::Flow << YAML::BeginSeq << "gridpeer-entrypoint"
        << YAML::EndSeq;
    std::string shape;
    for (const ShapedInterface& s : peer.shaping) {
      if (!shape.empty()) shape += ' ';
      shape += s.address + "=" + format_number(s.mbps) + "/" + format_number(s.latency_ms);
    }
    out << YAML::Key << "environment" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "GRIDPEER_SHAPE" << YAML::Value << shape;
    out << YAML::Key << "GRIDPEER_TLS_FROM" << YAML::Value << options.tls_source;
    out << YAML::Key << "GRIDPEER_TLS_TO" << YAML::Value << options.tls_in_container;
    out << YAML::Key << "GRIDPEER_TLS_NAME" << YAML::Value << peer.server << YAML::EndMap;
    out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string& arg : peer.command) out << YAML::DoubleQuoted << arg;
    out << YAML::EndSeq;
    out << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq << options.host_dir + ":/testbed:ro";
    if (options.journal) out << "state-" + peer.service + ":" + options.state_in_container;
    out << YAML::EndSeq;
    out << YAML::Key << "stop_grace_period" << YAML::Value << "40s";
    out << YAML::Key << "networks" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "site" + std::to_string(peer.site) << YAML::Value << YAML::BeginMap << YAML::Key
        << "ipv4_address" << YAML::Value << peer.site_address << YAML::EndMap;
    out << YAML::Key << "wan" << YAML::Value << YAML::BeginMap << YAML::Key << "ipv4_address" << YAML::Value
        << peer.wan_address << YAML::EndMap;
    out << YAML::EndMap;  // networks
    out << YAML::EndMap;  // service
  }
  // gridctl's container: on the WAN only, unshaped (control traffic is small).
  out << YAML::Key << "control" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "image" << YAML::Value << options.image;
  out << YAML::Key << "hostname" << YAML::Value << "control";
  // Root only to copy its certificate for the unprivileged user, as the peers do.
  out << YAML::Key << "user" << YAML::Value << YAML::DoubleQuoted << "0";
  out << YAML::Key << "init" << YAML::Value << true;
  out << YAML::Key << "entrypoint" << YAML::Value << YAML::Flow << YAML::BeginSeq << "gridpeer-entrypoint"
      << YAML::EndSeq;
  out << YAML::Key << "environment" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "GRIDPEER_TLS_FROM" << YAML::Value << options.tls_source;
  out << YAML::Key << "GRIDPEER_TLS_TO" << YAML::Value << options.tls_in_container;
  out << YAML::Key << "GRIDPEER_TLS_NAME" << YAML::Value << kControlCertificate << YAML::EndMap;
  out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq << "sleep"
      << "infinity" << YAML::EndSeq;
  out << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq << options.host_dir + ":/testbed";
  if (!options.trace_dir.empty()) out << options.trace_dir + ":/traces:ro";
  out << YAML::EndSeq;
  out << YAML::Key << "networks" << YAML::Value << YAML::BeginMap << YAML::Key << "wan" << YAML::Value << YAML::BeginMap
      << YAML::Key << "ipv4_address" << YAML::Value << plan.control_address << YAML::EndMap << YAML::EndMap;
  out << YAML::EndMap;  // control
  out << YAML::EndMap;  // services
  out << YAML::Key << "networks" << YAML::Value << YAML::BeginMap;
  for (const NetworkPlan& network : plan.networks) {
    out << YAML::Key << network.name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "internal" << YAML::Value << true;
    out << YAML::Key << "ipam" << YAML::Value << YAML::BeginMap << YAML::Key << "config" << YAML::Value
        << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "subnet" << YAML::Value << network.subnet << YAML::EndMap
        << YAML::EndSeq << YAML::EndMap;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;  // networks
  if (options.journal) {
    out << YAML::Key << "volumes" << YAML::Value << YAML::BeginMap;
    for (const PeerPlan& peer : plan.peers) out << YAML::Key << "state-" + peer.service << YAML::Value << YAML::Null;
    out << YAML::EndMap;  // volumes
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace gridpeer::testbed
