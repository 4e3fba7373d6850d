// gridctl ca: what a grid needs for mutual TLS. `ca init DIR`
// makes the grid's CA; `ca issue NAME --role ROLE --ca DIR` a certificate it
// signs: one per peer (NAME = its server name in the topology) and one per
// gridctl user (operator or submitter). Keys are written readable by their
// owner only.

#include <cxxopts.hpp>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "peer/client/commands.hpp"
#include "peer/client/credential_files.hpp"
#include "peer/io/cli/parse.hpp"
#include "peer/transport/certificates.hpp"

namespace gridpeer::client {
namespace {

namespace fs = std::filesystem;

cxxopts::Options init_options() {
  cxxopts::Options options("gridctl ca init",
                           "Make a grid's certificate authority in DIR: ca.pem (give it to every peer and user) and "
                           "ca-key.pem (keep it where certificates are issued, readable by you only).");
  options.add_options()("dir", "the directory to write to (made if missing)", cxxopts::value<std::string>())(
      "grid", "the grid's name, written into the CA's name", cxxopts::value<std::string>()->default_value("grid"))(
      "days", "days the CA is valid", cxxopts::value<int>()->default_value("3650"))(
      "force", "replace an existing CA (every certificate it signed stops being accepted)")("h,help", "show this help");
  options.parse_positional({"dir"});
  options.positional_help("DIR");
  return options;
}

int init_command(int argc, char** argv) {
  cxxopts::Options options = init_options();
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  if (args.count("dir") == 0U) throw std::invalid_argument("give the directory: gridctl ca init DIR");
  const fs::path dir = args["dir"].as<std::string>();
  fs::create_directories(dir);
  const transport::Credentials ca = transport::create_ca(args["grid"].as<std::string>(), args["days"].as<int>());
  const bool force = args.count("force") != 0U;
  write_text_file(dir / "ca-key.pem", ca.key_pem, true, force);
  write_text_file(dir / "ca.pem", ca.certificate_pem, false, force);
  std::cout << "wrote " << (dir / "ca.pem").string() << " and " << (dir / "ca-key.pem").string() << '\n';
  return 0;
}

cxxopts::Options issue_options() {
  cxxopts::Options options(
      "gridctl ca issue",
      "Issue a certificate signed by the grid's CA: NAME.pem and NAME-key.pem. A peer's NAME is its server name in "
      "the topology (role peer); a gridctl user's certificate carries a role: operator (drain, undrain, shutdown, "
      "and all a submitter may) or submitter (submit, replay, status, results).");
  options.add_options()("name", "whom it names", cxxopts::value<std::string>())("role", "peer, operator or submitter",
                                                                                cxxopts::value<std::string>())(
      "ca", "the directory of gridctl ca init", cxxopts::value<std::string>()->default_value("."))(
      "out", "where to write (default: the CA's directory)", cxxopts::value<std::string>())(
      "days", "days the certificate is valid", cxxopts::value<int>()->default_value("365"))(
      "force", "replace existing files of that name")("h,help", "show this help");
  options.parse_positional({"name"});
  options.positional_help("NAME");
  return options;
}

int issue_command(int argc, char** argv) {
  cxxopts::Options options = issue_options();
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  if (args.count("name") == 0U || args.count("role") == 0U) {
    throw std::invalid_argument("give a name and a role: gridctl ca issue NAME --role peer|operator|submitter");
  }
  const std::string role_text = args["role"].as<std::string>();
  const auto role = transport::parse_role(role_text);
  if (!role) throw std::invalid_argument("--role '" + role_text + "' is not peer, operator or submitter");
  const fs::path ca_dir = args["ca"].as<std::string>();
  const transport::Credentials ca{read_text_file(ca_dir / "ca.pem"), read_text_file(ca_dir / "ca-key.pem")};
  const std::string name = args["name"].as<std::string>();
  const transport::Credentials issued = transport::issue_certificate(ca, name, *role, args["days"].as<int>());
  const fs::path out = args.count("out") != 0U ? fs::path(args["out"].as<std::string>()) : ca_dir;
  fs::create_directories(out);
  const bool force = args.count("force") != 0U;
  write_credentials(out, name, issued, force);
  std::cout << "wrote " << (out / (name + ".pem")).string() << " (" << role_text << ") and its key\n";
  return 0;
}

}  // namespace

int ca_command(int argc, char** argv) {
  const std::string usage =
      "gridctl ca init DIR            make the grid's certificate authority\n"
      "gridctl ca issue NAME --role R --ca DIR   a certificate for a peer (R = peer) or a user (operator, "
      "submitter)\n";
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << usage;
    if (argc >= 2) std::cout << '\n' << init_options().help() << '\n' << issue_options().help();
    return argc < 2 ? 2 : 0;
  }
  const std::string sub = argv[1];
  if (sub == "init") return init_command(argc - 1, argv + 1);
  if (sub == "issue") return issue_command(argc - 1, argv + 1);
  std::cerr << "gridctl ca: unknown command '" << sub << "'\n" << usage;
  return 2;
}

}  // namespace gridpeer::client
