#include "peer/daemon/connection_gate.hpp"

#include <algorithm>

#include "peer/transport/epoch_bounds.hpp"

namespace gridpeer::daemon {

namespace asio = transport::asio;
using protocol::WireMessage;

namespace {

/// "submitter 'alice'" for a TLS connection's certificate, "" in plaintext.
std::string certificate_of(const transport::Connection& connection) {
  const auto& who = connection.identity();
  return who ? std::string(transport::to_string(who->role)) + " '" + who->name + "'" : std::string();
}
/// A kind of closing for the rate limit: `what` and the reason up to its
/// first colon ("malformed", "the other side reads too slowly", ...), so
/// that a flood of one costs a line a minute and another is still told.
std::string kind_of(const char* what, const std::string& reason) {
  return std::string(what) + " " + reason.substr(0, reason.find(':'));
}
std::string claim_of(const protocol::Hello& hello) {
  return hello.role == protocol::Hello::Role::peer ? "peer " + std::to_string(hello.peer) + " '" + hello.name + "'"
                                                   : "client '" + hello.name + "'";
}
/// How a joining peer's connection closes once answered (not a refusal).
constexpr const char* kJoinAnswered = "joined: it dials the members now";
/// Coroutines of the gate end the process on an exception (main says it).
void rethrow(const std::exception_ptr& error) {
  if (error) std::rethrow_exception(error);
}

}  // namespace

ConnectionGate::ConnectionGate(asio::io_context& io, const DaemonConfig& config, std::string algorithm,
                               PeerLinks& links, transport::ScaledClock& clock, GateEvents& events, Log log,
                               std::shared_ptr<spdlog::logger> logger)
    : io_(io),
      config_(config),
      algorithm_(std::move(algorithm)),
      links_(links),
      clock_(clock),
      events_(events),
      log_(std::move(log)),
      logger_(std::move(logger)),
      acceptor_(io),
      admission_(config.max_connections, config.max_connections_per_address) {}

std::string ConnectionGate::listening_on() const {
  const transport::PeerAddress& me = config_.listen.host.empty() ? config_.addresses.at(config_.self) : config_.listen;
  return me.host + ":" + std::to_string(me.port);
}

void ConnectionGate::listen() {
  const transport::PeerAddress& me = config_.listen.host.empty() ? config_.addresses.at(config_.self) : config_.listen;
  // Host names are resolved once, at start-up: failing here names the address.
  transport::tcp::resolver resolver(io_);
  const transport::tcp::endpoint endpoint = *resolver.resolve(me.host, std::to_string(me.port)).begin();
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(transport::tcp::acceptor::reuse_address(true));
  boost::system::error_code bound;
  acceptor_.bind(endpoint, bound);
  if (bound) {
    throw std::runtime_error("cannot listen on " + listening_on() + ": " + bound.message() +
                             (bound == asio::error::address_in_use ? " (is another gridpeer running there?)" : ""));
  }
  acceptor_.listen();
}

void ConnectionGate::start() {
  asio::co_spawn(io_, accept_loop(), rethrow);
  // Each pair connects once: the higher index dials the lower.
  for (ServerIndex peer = 0; peer < config_.self; ++peer) dial(peer);
}

void ConnectionGate::dial(ServerIndex peer) {
  // A gap (an index heard of before its member) or a member with no address is not dialed.
  if (peer >= config_.self || config_.grid.servers.at(peer).spec.name.empty() || config_.addresses.at(peer).port == 0 ||
      !dialing_.insert(peer).second) {
    return;
  }
  asio::co_spawn(io_, dial_loop(peer), rethrow);
}

void ConnectionGate::stop() {
  stopping_ = true;
  for (const auto& client : std::set(clients_)) client->close("shutting down");
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

bool ConnectionGate::clients_writing() const {
  return std::any_of(clients_.begin(), clients_.end(),
                     [](const std::shared_ptr<transport::Connection>& client) { return client->writing(); });
}

void ConnectionGate::log_refusal(const transport::Refusal& refusal) {
  if (const auto line = refusals_.line(refusal, std::chrono::steady_clock::now())) log_(spdlog::level::warn, *line);
}

// ---- accepting and dialing -------------------------------------------------------

transport::awaitable<void> ConnectionGate::accept_loop() {
  while (!stopping_) {
    boost::system::error_code ec;
    transport::tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(transport::use_awaitable, ec));
    if (ec) {
      if (stopping_) co_return;
      // Out of file descriptors the next accept fails at once: without a
      // pause the loop spun, 2.9 million log lines in 10 s.
      if (accept_backoff_.count() == 0) log_(spdlog::level::warn, "accept: " + ec.message() + "; backing off");
      accept_backoff_ =
          std::min(std::max(accept_backoff_ * 2, std::chrono::milliseconds(10)), std::chrono::milliseconds(1000));
      asio::steady_timer pause(io_, accept_backoff_);
      co_await pause.async_wait(asio::redirect_error(transport::use_awaitable, ec));
      continue;
    }
    if (accept_backoff_.count() != 0) {
      log_(spdlog::level::info, "accepting again");
      accept_backoff_ = std::chrono::milliseconds(0);
    }
    // A place under the caps before anything else, the TLS handshake included.
    const auto endpoint = socket.remote_endpoint(ec);
    const std::string address = ec ? std::string("(unknown)") : endpoint.address().to_string();
    auto admitted = admission_.admit(address);
    if (const auto* why = std::get_if<std::string>(&admitted)) {
      log_refusal({ec ? address : address + ":" + std::to_string(endpoint.port()), "cap", *why, "", ""});
      boost::system::error_code ignored;
      if (!config_.tls) {
        // In plaintext a client can be told why (over TLS it sees the close
        // before any handshake, which gridctl names): one small frame, never
        // waited for.
        const protocol::Frame frame = protocol::encode(protocol::Error{
            protocol::Error::Code::not_accepted, name_of(config_.self) + " refused the connection: " + *why});
        socket.non_blocking(true, ignored);
        socket.write_some(asio::buffer(frame), ignored);
      }
      socket.close(ignored);
      continue;
    }
    auto lease = std::get<transport::ConnectionAdmission::Lease>(std::move(admitted));
    if (config_.tls) {
      asio::co_spawn(io_, accept_tls(std::move(socket), std::move(lease)), rethrow);
    } else {
      auto connection = std::make_shared<transport::Connection>(std::move(socket), config_.limits);
      connection->hold_until_closed(std::move(lease));
      greet(connection, std::nullopt);
    }
  }
}

transport::awaitable<std::variant<transport::CertificateIdentity, std::string>> ConnectionGate::tls_handshake(
    transport::TlsStream& stream, transport::ssl::stream_base::handshake_type side) {
  auto done = std::make_shared<bool>(false);
  auto timed_out = std::make_shared<bool>(false);
  asio::steady_timer limit(io_, config_.limits.handshake_timeout);
  limit.async_wait([&stream, done, timed_out](const boost::system::error_code& ec) {
    if (!ec && !*done) {
      *timed_out = true;
      boost::system::error_code ignored;
      stream.lowest_layer().close(ignored);  // the handshake fails at once
    }
  });
  boost::system::error_code ec;
  co_await stream.async_handshake(side, asio::redirect_error(transport::use_awaitable, ec));
  *done = true;
  limit.cancel();
  if (*timed_out) co_return std::string("no TLS handshake within the handshake time-out (--handshake-timeout)");
  if (ec) co_return std::string("TLS handshake: ") + ec.message();
  co_return transport::peer_identity(stream, *config_.tls);
}

transport::awaitable<std::shared_ptr<transport::Connection>> ConnectionGate::dial_tls(transport::tcp::socket socket,
                                                                                      ServerIndex peer) {
  // We dialed `peer`: its certificate must name it, as a peer.
  transport::TlsStream stream(std::move(socket), *config_.tls->context);
  const auto identity = co_await tls_handshake(stream, transport::ssl::stream_base::client);
  if (const auto* why = std::get_if<std::string>(&identity)) {
    logger_->debug("dial {}: {}", name_of(peer), *why);
    co_return nullptr;
  }
  const transport::CertificateIdentity& who = std::get<transport::CertificateIdentity>(identity);
  if (who.role != transport::Role::peer || who.name != name_of(peer)) {
    const transport::PeerAddress& address = config_.addresses.at(peer);
    log_refusal({address.host + ":" + std::to_string(address.port), "dialed",
                 "dialed " + name_of(peer) + ", but its certificate names another; hung up", "",
                 std::string(transport::to_string(who.role)) + " '" + who.name + "'"});
    co_return nullptr;
  }
  co_return std::make_shared<transport::Connection>(std::move(stream), config_.limits, who);
}

transport::awaitable<void> ConnectionGate::accept_tls(transport::tcp::socket socket,
                                                      transport::ConnectionAdmission::Lease lease) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  const std::string remote =
      ec ? std::string("(unknown)") : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  transport::TlsStream stream(std::move(socket), *config_.tls->context);
  const auto identity = co_await tls_handshake(stream, transport::ssl::stream_base::server);
  if (const auto* why = std::get_if<std::string>(&identity)) {
    // Rate-limited per reason: after a foreign CA's line, a plaintext or a
    // certificate-less attempt from the same address is still told.
    log_refusal({remote, "handshake: " + why->substr(0, why->find(" (")), *why, "", ""});
    co_return;
  }
  auto connection = std::make_shared<transport::Connection>(std::move(stream), config_.limits,
                                                            std::get<transport::CertificateIdentity>(identity));
  connection->hold_until_closed(std::move(lease));
  greet(connection, std::nullopt);
}

transport::awaitable<void> ConnectionGate::dial_loop(ServerIndex peer) {
  auto backoff = config_.reconnect_min;
  asio::steady_timer wait(io_);
  while (!stopping_) {
    if (!links_[peer].connection || !links_[peer].connection->is_open()) {
      const transport::PeerAddress& address = config_.addresses.at(peer);
      transport::tcp::socket socket(io_);
      boost::system::error_code ec;
      // Resolved on every attempt: a container's name may only appear in DNS once it is up.
      transport::tcp::resolver resolver(io_);
      const auto endpoints = co_await resolver.async_resolve(address.host, std::to_string(address.port),
                                                             asio::redirect_error(transport::use_awaitable, ec));
      if (!ec) co_await asio::async_connect(socket, endpoints, asio::redirect_error(transport::use_awaitable, ec));
      std::shared_ptr<transport::Connection> connection;
      if (!ec && config_.tls) {
        connection = co_await dial_tls(std::move(socket), peer);
        if (!connection) ec = asio::error::connection_refused;
      } else if (!ec) {
        connection = std::make_shared<transport::Connection>(std::move(socket), config_.limits);
      }
      if (!ec) {
        links_[peer].connection = connection;
        links_[peer].ready = false;
        greet(connection, peer);
        connection->send(events_.own_hello());
        backoff = config_.reconnect_min;
      } else {
        logger_->debug("dial {} ({}:{}): {}; again in {} ms", name_of(peer), address.host, address.port, ec.message(),
                       backoff.count());
        backoff = std::min(backoff * 2, config_.reconnect_max);
      }
    }
    wait.expires_after(backoff);
    boost::system::error_code ignored;
    co_await wait.async_wait(asio::redirect_error(transport::use_awaitable, ignored));
  }
}

// ---- hellos -------------------------------------------------------------------

void ConnectionGate::greet(const std::shared_ptr<transport::Connection>& connection,
                           std::optional<ServerIndex> dialed) {
  // Until the handshake, the only message accepted is Hello; then the
  // connection is a peer's or a client's.
  auto weak = std::weak_ptr<transport::Connection>(connection);
  connection->start(
      [this, weak, dialed](WireMessage message) {
        if (auto c = weak.lock()) on_first_message(c, std::move(message), dialed);
      },
      [this, weak, dialed](const std::string& reason) {
        if (dialed) {
          if (links_.current(*dialed, weak.lock())) {
            const bool was_ready = links_[*dialed].ready;
            links_[*dialed].ready = false;
            links_[*dialed].connection.reset();
            events_.peer_lost(*dialed, reason, was_ready);
          }
        } else if (auto c = weak.lock(); c && reason != kJoinAnswered) {
          log_refusal({c->remote(), kind_of("before hello", reason), "closed before its hello: " + reason, "",
                       certificate_of(*c)});
        }
      });
}

void ConnectionGate::refuse_hello(const std::shared_ptr<transport::Connection>& connection,
                                  const protocol::Hello& hello, const HelloRefusal& refusal) {
  // Rate-limited per address and kind: a flood of one kind costs a line a
  // minute, while a different refusal from the same address is still told.
  log_refusal({connection->remote(), refusal.kind, refusal.reason, claim_of(hello), certificate_of(*connection)});
  connection->fail(refusal.code, refusal.detail);
}

void ConnectionGate::on_first_message(const std::shared_ptr<transport::Connection>& connection, WireMessage message,
                                      std::optional<ServerIndex> dialed) {
  if (const auto* refused = std::get_if<protocol::Error>(&message); refused != nullptr && dialed) {
    // The partner we dialed refused our hello: say why, once a minute.
    if (const auto held =
            refusals_.pass("peer " + name_of(*dialed), "refused our hello", std::chrono::steady_clock::now())) {
      log_(spdlog::level::warn,
           "peer " + name_of(*dialed) + " refused this peer's hello: " + protocol::to_string(refused->code) + ": " +
               refused->detail +
               (*held > 0 ? " [and " + std::to_string(*held) + " more since the last]" : std::string()));
    }
    connection->close("refused by " + name_of(*dialed));
    return;
  }
  const auto* hello = std::get_if<protocol::Hello>(&message);
  if (hello == nullptr) {
    log_refusal({connection->remote(), "hello", std::string(protocol::message_name(message)) + " before hello", "",
                 certificate_of(*connection)});
    connection->fail(protocol::Error::Code::not_accepted,
                     std::string("send hello first (got ") + protocol::message_name(message) + ")");
    return;
  }
  if (hello->version != protocol::kProtocolVersion) {
    refuse_hello(
        connection, *hello,
        {"hello version", protocol::Error::Code::version_mismatch, "protocol version " + std::to_string(hello->version),
         "this peer speaks version " + std::to_string(protocol::kProtocolVersion) + ", you sent " +
             std::to_string(hello->version)});
    return;
  }
  // Over TLS, the certificate decides who this is: a peer's must name the
  // peer its hello claims; a client's must carry a user's role.
  if (const auto& who = connection->identity()) {
    const bool peer_hello = hello->role == protocol::Hello::Role::peer;
    const bool fits = peer_hello ? who->role == transport::Role::peer && who->name == hello->name
                                 : who->role != transport::Role::peer;
    if (!fits) {
      const std::string claim = peer_hello ? "peer '" + hello->name + "'" : std::string("a client");
      refuse_hello(
          connection, *hello,
          {"hello certificate", protocol::Error::Code::not_accepted, "its certificate does not name what it claims",
           "your certificate names " + std::string(transport::to_string(who->role)) + " '" + who->name + "', not " +
               claim});
      return;
    }
  }
  if (hello->role == protocol::Hello::Role::client) {
    admit_client(connection);
    return;
  }
  if (hello->joining && !dialed) {
    answer_join(connection, *hello);
    return;
  }
  if (const auto refusal = check_peer_hello(connection, *hello, dialed)) {
    refuse_hello(connection, *hello, *refusal);
    return;
  }
  if (clock_.adopt_epoch(hello->epoch_unix_us)) events_.epoch_adopted(hello->name);
  if (!dialed) connection->send(events_.own_hello());
  admit_peer(hello->peer, connection, *hello);
}

std::optional<ConnectionGate::HelloRefusal> ConnectionGate::check_config(const protocol::Hello& h) const {
  if (h.time_scale != config_.time_scale || h.algorithm != algorithm_) {
    return HelloRefusal{"hello config", protocol::Error::Code::config_mismatch,
                        "it runs " + h.algorithm + " at time scale " + std::to_string(h.time_scale),
                        "this peer runs " + algorithm_ + " at time scale " + std::to_string(config_.time_scale) +
                            "; you run " + h.algorithm + " at " + std::to_string(h.time_scale)};
  }
  return std::nullopt;
}

std::optional<ConnectionGate::HelloRefusal> ConnectionGate::check_epoch(const protocol::Hello& h) const {
  // One early epoch would push every peer's virtual time forward (past the
  // wire's bound, once, for good): a partner's is shared only near our own.
  if (const auto why = transport::partner_epoch_refusal(clock_.epoch_unix_us(), h.epoch_unix_us, config_.max_epoch_skew,
                                                        config_.time_scale, transport::ScaledClock::unix_now_us())) {
    return HelloRefusal{"hello epoch", protocol::Error::Code::config_mismatch, *why,
                        name_of(config_.self) + " refuses your epoch: " + *why};
  }
  return std::nullopt;
}

std::optional<ConnectionGate::HelloRefusal> ConnectionGate::check_peer_hello(
    const std::shared_ptr<transport::Connection>& connection, const protocol::Hello& h,
    std::optional<ServerIndex> dialed) {
  if (h.peer == config_.self) {
    return HelloRefusal{"hello self", protocol::Error::Code::unknown_peer, "a peer claiming to be this peer",
                        "peer " + std::to_string(h.peer) + " '" + h.name +
                            "' is this peer itself: is a second gridpeer running with the same --self?"};
  }
  if (auto refusal = check_config(h)) return refusal;
  const auto known = [&] {
    return h.peer < config_.grid.servers.size() && config_.grid.servers[h.peer].spec.name == h.name &&
           (!dialed || *dialed == h.peer);
  };
  if (!known()) {
    // A member that joined through another peer, before word of it came
    // here: taken up only with an epoch this grid shares.
    if (auto refusal = check_epoch(h)) return refusal;
    const std::optional<std::string> why =
        dialed ? std::optional<std::string>("dialed as " + name_of(*dialed)) : events_.unknown_member(h);
    if (why || !known()) {
      return HelloRefusal{"hello unknown", protocol::Error::Code::unknown_peer,
                          "not a member of grid " + config_.grid.name + ": " + why.value_or("unknown"),
                          "peer " + std::to_string(h.peer) + " '" + h.name +
                              "' is not a member here: " + why.value_or("unknown") + " (join with gridpeer --join)"};
    }
  }
  const PeerLinks::Link& link = links_[h.peer];
  if (link.ready && link.connection && link.connection != connection && link.connection->is_open()) {
    // Swapping it in let one forged hello make A believe C restarted. The
    // real partner, back after a crash, is let in once its old link has
    // closed -- at once on a reset, else after --peer-silence.
    return HelloRefusal{
        "hello second", protocol::Error::Code::not_accepted,
        "a second connection for " + h.name + ", whose link from " + link.connection->remote() + " is live",
        "peer " + h.name + " is connected already; a second connection is refused"};
  }
  return check_epoch(h);
}

void ConnectionGate::answer_join(const std::shared_ptr<transport::Connection>& connection,
                                 const protocol::Hello& hello) {
  if (auto refusal = check_config(hello); refusal || (refusal = check_epoch(hello))) {
    refuse_hello(connection, hello, *refusal);
    return;
  }
  auto answer = events_.join_request(hello);
  if (const auto* why = std::get_if<std::string>(&answer)) {
    refuse_hello(connection, hello,
                 {"join refused", protocol::Error::Code::not_accepted, "a join refused: " + *why, *why});
    return;
  }
  // Its hello and every member; the joiner then dials each as a member.
  connection->send(events_.own_hello());
  std::weak_ptr<transport::Connection> weak = connection;
  connection->send(std::get<protocol::MemberSync>(std::move(answer)), [weak](bool /*written*/) {
    if (auto c = weak.lock()) c->close(kJoinAnswered);
  });
}

void ConnectionGate::admit_client(const std::shared_ptr<transport::Connection>& connection) {
  if (const auto& who = connection->identity()) {
    log_(spdlog::level::info, "client " + who->name + " (" + std::string(transport::to_string(who->role)) +
                                  ") connected from " + connection->remote());
  }
  clients_.insert(connection);
  std::weak_ptr<transport::Connection> weak = connection;
  connection->start(
      [this, weak](WireMessage m) {
        if (auto c = weak.lock()) events_.client_request(c, std::move(m));
      },
      [this, weak](const std::string& reason) {
        const auto c = weak.lock();
        if (c && reason != "closed by the other side") {
          log_refusal(
              {c->remote(), kind_of("client", reason), "client disconnected: " + reason, "", certificate_of(*c)});
        }
        clients_.erase(c);
      });
  connection->set_idle_timeout(config_.client_idle);
  connection->send(events_.own_hello());
}

void ConnectionGate::admit_peer(ServerIndex peer, const std::shared_ptr<transport::Connection>& connection,
                                const protocol::Hello& hello) {
  PeerLinks::Link& link = links_[peer];
  if (link.connection && link.connection != connection && link.connection->is_open()) {
    link.connection->close("replaced by a new connection");
  }
  link.connection = connection;
  link.ready = true;
  connection->set_idle_timeout(config_.peer_silence);  // its heartbeats keep the link open
  std::weak_ptr<transport::Connection> weak = connection;
  connection->start(
      [this, peer, weak](WireMessage m) {
        if (links_.current(peer, weak.lock())) events_.peer_message(peer, std::move(m));
      },
      [this, peer, weak](const std::string& reason) {
        if (!links_.current(peer, weak.lock())) return;
        const bool was_ready = links_[peer].ready;
        links_[peer].ready = false;
        links_[peer].connection.reset();
        events_.peer_lost(peer, reason, was_ready);
      });
  log_(spdlog::level::info, "peer " + name_of(peer) + " connected (" + connection->remote() + ")");
  events_.peer_admitted(peer, hello);
}

}  // namespace gridpeer::daemon
