#pragma once
// What a peer answers its users (gridctl, or any Cap'n Proto client): a
// request in, the replies out, roles checked against the certificate (drain,
// undrain and shutdown need an operator's). No connection and no clock: the
// daemon sends the answer; tests call it directly.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/common.h>

#include "peer/transport/certificates.hpp"
#include "protocol/wire.hpp"

namespace gridpeer::daemon {

/// What the service asks of the peer behind it.
class ClientBackend {
 public:
  virtual ~ClientBackend() = default;
  /// Numbers and takes one job (not yet journaled: commit_submissions).
  virtual protocol::SubmitAck submit(const Job& job) = 0;
  /// Makes what submit took durable (one journal transaction for a bag):
  /// called before any acknowledgement is sent.
  virtual void commit_submissions() = 0;
  virtual protocol::PeerStatus status() = 0;
  [[nodiscard]] virtual const std::vector<protocol::ResultRecord>& results() const = 0;
  virtual void drain() = 0;
  /// Why the peer cannot take work again, or nothing when it now does.
  virtual std::optional<std::string> undrain() = 0;
  /// Finish or hand back what is held, then exit; with `leave`, tell the
  /// members this peer leaves the grid before it goes.
  virtual void stop(const std::string& why, bool leave) = 0;
};

class ClientService {
 public:
  using Log = std::function<void(spdlog::level::level_enum, const std::string&)>;
  ClientService(ClientBackend& backend, Log log) : backend_(backend), log_(std::move(log)) {}

  struct Answer {
    std::vector<protocol::WireMessage> replies;
    /// Refused: this error goes last, and the connection closes after it.
    std::optional<protocol::Error> refusal;
  };
  /// The answer to `request` from a client whose certificate says `who`
  /// (none in plaintext: whoever reaches the port).
  Answer handle(const protocol::WireMessage& request, const std::optional<transport::CertificateIdentity>& who);

 private:
  /// Over TLS, drain, undrain and shutdown need an operator: logged with
  /// the name either way; the refusal when not allowed.
  std::optional<protocol::Error> check_role(const protocol::WireMessage& request,
                                            const std::optional<transport::CertificateIdentity>& who);
  [[nodiscard]] protocol::ResultsReply results(const protocol::ResultsRequest& request) const;

  ClientBackend& backend_;
  Log log_;
};

}  // namespace gridpeer::daemon
