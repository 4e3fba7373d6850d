#include "peer/daemon/peer_daemon.hpp"

#include <malloc.h>

#include <random>

#include <algorithm>
#include <cmath>

#include "peer/io/topology/network_graph.hpp"
#include "peer/model/overloaded.hpp"
#include "peer/net/epoch_bounds.hpp"

namespace gridpeer::daemon {

namespace asio = net::asio;
using protocol::WireMessage;

PeerDaemon::PeerDaemon(asio::io_context& io, DaemonConfig config, std::shared_ptr<spdlog::logger> log)
    : io_(io),
      config_(std::move(config)),
      log_(std::move(log)),
      clock_(config_.time_scale, config_.epoch_unix_us != 0 ? config_.epoch_unix_us : net::ScaledClock::unix_now_us()),
      acceptor_(io),
      deadline_timer_(io),
      admission_(config_.max_connections, config_.max_connections_per_address) {
  network_ = std::make_unique<network::StaticNetworkView>(topology::network_graph(config_.grid),
                                                          topology::route_rule(config_.grid));
  // New at every start (never 0): partners tell a restart from a connection
  // that only dropped (and, from our hello, whether we kept a journal).
  std::random_device entropy;
  while (boot_id_ == 0) boot_id_ = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
  peers_.resize(config_.grid.servers.size());
}

auto PeerDaemon::stop_on_exception(const char* where) {
  return [this, where](const std::exception_ptr& error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const JournalError& e) {
      fail_stop(kExitStorage, std::string("the journal failed (") + where + "): " + e.what());
    } catch (const std::exception& e) {
      fail_stop(kExitInternal, std::string("unexpected error in ") + where + ": " + e.what());
    }
  };
}

void PeerDaemon::fail_stop(int code, const std::string& why) {
  log_->critical("[t={:.3f}s] {}; exiting with status {} so that a supervisor restarts this peer{}",
                 to_seconds(clock_.now().time_since_epoch()), why, code,
                 journal_ ? " from what its journal committed" : "");
  log_->flush();
  std::_Exit(code);  // nothing more may be sent: what the failed write guarded was never acknowledged
}

void PeerDaemon::open_journal() {
  journal_ = Journal::open(config_.state_dir, name_of(config_.self), config_.grid.name,
                           JournalOwner{config_.self, config_.grid.servers.size()}, config_.init_state);
  // The kept epoch is checked before anything is counted: a grid whose time
  // ran out does not spend an incarnation on every refused start.
  const std::int64_t kept = journal_->epoch();
  if (kept != 0) {
    clock_.adopt_epoch(kept);
    check_epoch(true);
  }
  // Counted up and synced before the first job is numbered: ids never repeat across restarts.
  incarnation_ = journal_->begin_incarnation();
  journal_->save_epoch(clock_.epoch_unix_us());
  config_.grid_config.journaled = true;  // the core says what must be kept before each promise
}

void PeerDaemon::check_epoch(bool kept) const {
  const auto why = net::epoch_refusal(clock_.epoch_unix_us(), config_.time_scale, net::ScaledClock::unix_now_us());
  if (!why) return;
  if (!kept) throw std::invalid_argument(*why);
  throw std::invalid_argument("the epoch kept in " + journal_->file().string() + ": " + *why +
                              ". This grid's virtual time has run out: collect its results, then start a new grid "
                              "with new state directories (docs/security.md, \"Virtual time\")");
}

void PeerDaemon::start() {
  check_epoch(false);  // before anything is made or bound
  if (!config_.state_dir.empty()) state_lock_ = StateDirLock::take(config_.state_dir);
  const net::PeerAddress& me = config_.listen.host.empty() ? config_.addresses.at(config_.self) : config_.listen;
  // Host names are resolved once, at start-up: failing here names the address.
  net::tcp::resolver resolver(io_);
  const net::tcp::endpoint endpoint = *resolver.resolve(me.host, std::to_string(me.port)).begin();
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::tcp::acceptor::reuse_address(true));
  boost::system::error_code bound;
  acceptor_.bind(endpoint, bound);
  if (bound) {
    throw std::runtime_error("cannot listen on " + me.host + ":" + std::to_string(me.port) + ": " + bound.message() +
                             (bound == asio::error::address_in_use ? " (is another gridpeer running there?)" : ""));
  }
  acceptor_.listen();
  if (config_.state_dir.empty()) {
    incarnation_ = boot_id_ >> 48;  // drawn: ids repeat across restarts with probability 1/65,536
  } else {
    open_journal();
  }
  std::vector<ServerIndex> partners;
  for (ServerIndex i = 0; i < config_.grid.servers.size(); ++i) {
    if (i != config_.self) partners.push_back(i);
  }
  core_ = std::make_unique<GridPeer>(config_.self, config_.grid.servers.at(config_.self).spec, config_.grid_config,
                                     partners, *network_, now());
  if (journal_) recover();
  // Nobody is asked until connected (002 §3.1.1: non-responders are ignored;
  // a peer known to be down is not waited for).
  for (const ServerIndex partner : partners)
    core_->on_peer(partner, PeerState::unreachable, "not connected yet", now());
  settle();
  log_event(
      spdlog::level::info,
      "listening on " + me.host + ":" + std::to_string(me.port) + " as " + name_of(config_.self) + ", algorithm " +
          algorithm_label(config_.grid_config) + ", time scale " + std::to_string(config_.time_scale) + ", epoch " +
          net::utc_text(clock_.epoch_unix_us()) + " (--epoch-unix-us " + std::to_string(clock_.epoch_unix_us()) +
          "), incarnation " + std::to_string(incarnation_) +
          (journal_ ? " (journal " + journal_->file().string() + ", " + journal_->opened_as() + ")" : std::string()));
  asio::co_spawn(io_, accept_loop(), stop_on_exception("the accept loop"));
  // Each pair connects once: the higher index dials the lower.
  for (ServerIndex peer = 0; peer < config_.self; ++peer) {
    asio::co_spawn(io_, dial_loop(peer), stop_on_exception("dialing a partner"));
  }
  asio::co_spawn(io_, deadline_loop(), stop_on_exception("the core's wake-ups"));
  asio::co_spawn(io_, housekeeping_loop(), stop_on_exception("housekeeping"));
  reschedule();
}

void PeerDaemon::recover() {
  for (protocol::ResultRecord& result : journal_->results()) {
    if (result.outcome == JobOutcome::lost) ++lost_;
    if (result.outcome == JobOutcome::rejected) ++rejected_;
    ++submitted_;
    if (results_.size() < config_.max_results) results_.push_back(std::move(result));
  }
  const auto kept = journal_->entries();
  if (kept.empty()) return;
  const Recovery r = core_->restore(kept, static_cast<std::uint32_t>(incarnation_), now());
  recovered_ = r.requeued + r.committed;
  submitted_ += recovered_;
  log_event(spdlog::level::warn,
            "recovered from " + journal_->file().string() + ": " + std::to_string(r.requeued) +
                " own jobs decided again (run again if they were running here), " + std::to_string(r.committed) +
                " committed elsewhere (their executors asked again), " + std::to_string(r.hosted) +
                " others' jobs queued again here, " + std::to_string(r.ran) + " outputs kept for their origins; " +
                std::to_string(results_.size()) + " results kept");
}

void PeerDaemon::log_event(spdlog::level::level_enum level, const std::string& text) {
  log_->log(level, "[t={:.3f}s] {}", to_seconds(now().time_since_epoch()), text);
}

void PeerDaemon::log_refusal(const net::Refusal& refusal) {
  if (const auto line = refusals_.line(refusal, std::chrono::steady_clock::now())) {
    log_event(spdlog::level::warn, *line);
  }
}

namespace {
/// "submitter 'alice'" for a TLS connection's certificate, "" in plaintext.
std::string certificate_of(const net::Connection& connection) {
  const auto& who = connection.identity();
  return who ? std::string(net::to_string(who->role)) + " '" + who->name + "'" : std::string();
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
}  // namespace

void PeerDaemon::refuse_hello(const std::shared_ptr<net::Connection>& connection, const protocol::Hello& hello,
                              const char* kind, protocol::Error::Code code, const std::string& reason,
                              const std::string& detail) {
  // Rate-limited per address and kind: a flood of one kind costs a line a
  // minute, while a different refusal from the same address is still told.
  log_refusal({connection->remote(), kind, reason, claim_of(hello), certificate_of(*connection)});
  connection->fail(code, detail);
}

protocol::Hello PeerDaemon::hello() const {
  protocol::Hello h = net::peer_hello(config_.grid, config_.self, config_.time_scale, boot_id_, clock_.epoch_unix_us(),
                                      algorithm_label(config_.grid_config));
  h.journaled = journal_ != nullptr;
  return h;
}

// ---- connections ----------------------------------------------------------------

net::awaitable<void> PeerDaemon::accept_loop() {
  while (!stopping_) {
    boost::system::error_code ec;
    net::tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(net::use_awaitable, ec));
    if (ec) {
      if (stopping_) co_return;
      // Out of file descriptors the next accept fails at once: without a
      // pause the loop spun, 2.9 million log lines in 10 s (issue 18).
      if (accept_backoff_.count() == 0) log_event(spdlog::level::warn, "accept: " + ec.message() + "; backing off");
      accept_backoff_ =
          std::min(std::max(accept_backoff_ * 2, std::chrono::milliseconds(10)), std::chrono::milliseconds(1000));
      asio::steady_timer pause(io_, accept_backoff_);
      co_await pause.async_wait(asio::redirect_error(net::use_awaitable, ec));
      continue;
    }
    if (accept_backoff_.count() != 0) {
      log_event(spdlog::level::info, "accepting again");
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
    auto lease = std::get<net::ConnectionAdmission::Lease>(std::move(admitted));
    if (config_.tls) {
      asio::co_spawn(io_, accept_tls(std::move(socket), std::move(lease)), stop_on_exception("a TLS handshake"));
    } else {
      auto connection = std::make_shared<net::Connection>(std::move(socket), config_.limits);
      connection->hold_until_closed(std::move(lease));
      adopt(connection, std::nullopt);
    }
  }
}

net::awaitable<std::variant<CertificateIdentity, std::string>> PeerDaemon::tls_handshake(
    net::TlsStream& stream, net::ssl::stream_base::handshake_type side) {
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
  co_await stream.async_handshake(side, asio::redirect_error(net::use_awaitable, ec));
  *done = true;
  limit.cancel();
  if (*timed_out) co_return std::string("no TLS handshake within the handshake time-out (--handshake-timeout)");
  if (ec) co_return std::string("TLS handshake: ") + ec.message();
  co_return net::peer_identity(stream, *config_.tls);
}

net::awaitable<std::shared_ptr<net::Connection>> PeerDaemon::dial_tls(net::tcp::socket socket, ServerIndex peer) {
  // We dialed `peer`: its certificate must name it, as a peer.
  net::TlsStream stream(std::move(socket), *config_.tls->context);
  const auto identity = co_await tls_handshake(stream, net::ssl::stream_base::client);
  if (const auto* why = std::get_if<std::string>(&identity)) {
    log_->debug("dial {}: {}", name_of(peer), *why);
    co_return nullptr;
  }
  const CertificateIdentity& who = std::get<CertificateIdentity>(identity);
  if (who.role != net::Role::peer || who.name != name_of(peer)) {
    const net::PeerAddress& address = config_.addresses.at(peer);
    log_refusal({address.host + ":" + std::to_string(address.port), "dialed",
                 "dialed " + name_of(peer) + ", but its certificate names another; hung up", "",
                 std::string(net::to_string(who.role)) + " '" + who.name + "'"});
    co_return nullptr;
  }
  co_return std::make_shared<net::Connection>(std::move(stream), config_.limits, who);
}

net::awaitable<void> PeerDaemon::accept_tls(net::tcp::socket socket, net::ConnectionAdmission::Lease lease) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  const std::string remote =
      ec ? std::string("(unknown)") : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  net::TlsStream stream(std::move(socket), *config_.tls->context);
  const auto identity = co_await tls_handshake(stream, net::ssl::stream_base::server);
  if (const auto* why = std::get_if<std::string>(&identity)) {
    // Rate-limited per reason: after a foreign CA's line, a plaintext or a
    // certificate-less attempt from the same address is still told.
    log_refusal({remote, "handshake: " + why->substr(0, why->find(" (")), *why, "", ""});
    co_return;
  }
  auto connection =
      std::make_shared<net::Connection>(std::move(stream), config_.limits, std::get<CertificateIdentity>(identity));
  connection->hold_until_closed(std::move(lease));
  adopt(connection, std::nullopt);
}

net::awaitable<void> PeerDaemon::dial_loop(ServerIndex peer) {
  auto backoff = config_.reconnect_min;
  asio::steady_timer wait(io_);
  while (!stopping_) {
    if (!peers_[peer].connection || !peers_[peer].connection->is_open()) {
      const net::PeerAddress& address = config_.addresses.at(peer);
      net::tcp::socket socket(io_);
      boost::system::error_code ec;
      // Resolved on every attempt: a container's name may only appear in DNS once it is up.
      net::tcp::resolver resolver(io_);
      const auto endpoints = co_await resolver.async_resolve(address.host, std::to_string(address.port),
                                                             asio::redirect_error(net::use_awaitable, ec));
      if (!ec) co_await asio::async_connect(socket, endpoints, asio::redirect_error(net::use_awaitable, ec));
      std::shared_ptr<net::Connection> connection;
      if (!ec && config_.tls) {
        connection = co_await dial_tls(std::move(socket), peer);
        if (!connection) ec = asio::error::connection_refused;
      } else if (!ec) {
        connection = std::make_shared<net::Connection>(std::move(socket), config_.limits);
      }
      if (!ec) {
        peers_[peer].connection = connection;
        peers_[peer].ready = false;
        adopt(connection, peer);
        connection->send(hello());
        backoff = config_.reconnect_min;
      } else {
        log_->debug("dial {} ({}:{}): {}; again in {} ms", name_of(peer), address.host, address.port, ec.message(),
                    backoff.count());
        backoff = std::min(backoff * 2, config_.reconnect_max);
      }
    }
    wait.expires_after(backoff);
    boost::system::error_code ignored;
    co_await wait.async_wait(asio::redirect_error(net::use_awaitable, ignored));
  }
}

void PeerDaemon::adopt(const std::shared_ptr<net::Connection>& connection, std::optional<ServerIndex> dialed) {
  // Until the handshake, the only message accepted is Hello; then the
  // connection is a peer's or a client's.
  auto weak = std::weak_ptr<net::Connection>(connection);
  connection->start(
      [this, weak, dialed](WireMessage message) {
        if (auto c = weak.lock()) on_first_message(c, std::move(message), dialed);
      },
      [this, weak, dialed](const std::string& reason) {
        if (dialed) {
          if (peers_[*dialed].connection == weak.lock()) peer_down(*dialed, reason);
        } else if (auto c = weak.lock()) {
          log_refusal({c->remote(), kind_of("before hello", reason), "closed before its hello: " + reason, "",
                       certificate_of(*c)});
        }
      });
}

void PeerDaemon::on_first_message(const std::shared_ptr<net::Connection>& connection, WireMessage message,
                                  std::optional<ServerIndex> dialed) {
  const auto* h = std::get_if<protocol::Hello>(&message);
  if (const auto* refused = std::get_if<protocol::Error>(&message); refused != nullptr && dialed) {
    // The partner we dialed refused our hello: say why, once a minute.
    if (const auto held =
            refusals_.pass("peer " + name_of(*dialed), "refused our hello", std::chrono::steady_clock::now())) {
      log_event(spdlog::level::warn,
                "peer " + name_of(*dialed) + " refused this peer's hello: " + protocol::to_string(refused->code) +
                    ": " + refused->detail +
                    (*held > 0 ? " [and " + std::to_string(*held) + " more since the last]" : std::string()));
    }
    connection->close("refused by " + name_of(*dialed));
    return;
  }
  if (h == nullptr) {
    log_refusal({connection->remote(), "hello", std::string(protocol::message_name(message)) + " before hello", "",
                 certificate_of(*connection)});
    connection->fail(protocol::Error::Code::not_accepted,
                     std::string("send hello first (got ") + protocol::message_name(message) + ")");
    return;
  }
  if (h->version != protocol::kProtocolVersion) {
    refuse_hello(connection, *h, "hello version", protocol::Error::Code::version_mismatch,
                 "protocol version " + std::to_string(h->version),
                 "this peer speaks version " + std::to_string(protocol::kProtocolVersion) + ", you sent " +
                     std::to_string(h->version));
    return;
  }
  // Over TLS, the certificate decides who this is: a peer's must name the
  // peer its hello claims; a client's must carry a user's role.
  if (const auto& who = connection->identity()) {
    const bool peer_hello = h->role == protocol::Hello::Role::peer;
    const bool fits = peer_hello ? who->role == net::Role::peer && who->name == h->name : who->role != net::Role::peer;
    if (!fits) {
      const std::string claim = peer_hello ? "peer '" + h->name + "'" : std::string("a client");
      refuse_hello(
          connection, *h, "hello certificate", protocol::Error::Code::not_accepted,
          "its certificate does not name what it claims",
          "your certificate names " + std::string(net::to_string(who->role)) + " '" + who->name + "', not " + claim);
      return;
    }
  }
  if (h->role == protocol::Hello::Role::client) {
    if (const auto& who = connection->identity()) {
      log_event(spdlog::level::info, "client " + who->name + " (" + std::string(net::to_string(who->role)) +
                                         ") connected from " + connection->remote());
    }
    clients_.insert(connection);
    std::weak_ptr<net::Connection> weak = connection;
    connection->start(
        [this, weak](WireMessage m) {
          if (auto c = weak.lock()) on_client_message(c, std::move(m));
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
    connection->send(hello());
    return;
  }
  if (h->peer == config_.self) {
    refuse_hello(connection, *h, "hello self", protocol::Error::Code::unknown_peer, "a peer claiming to be this peer",
                 "peer " + std::to_string(h->peer) + " '" + h->name +
                     "' is this peer itself: is a second gridpeer running with the same --self?");
    return;
  }
  const bool known = h->peer < config_.grid.servers.size() && config_.grid.servers[h->peer].spec.name == h->name &&
                     (!dialed || *dialed == h->peer);
  if (!known) {
    refuse_hello(connection, *h, "hello unknown", protocol::Error::Code::unknown_peer,
                 "not a peer of topology " + config_.grid.name,
                 "peer " + std::to_string(h->peer) + " '" + h->name + "' is not in topology " + config_.grid.name);
    return;
  }
  if (h->time_scale != config_.time_scale || h->algorithm != algorithm_label(config_.grid_config)) {
    refuse_hello(connection, *h, "hello config", protocol::Error::Code::config_mismatch,
                 "it runs " + h->algorithm + " at time scale " + std::to_string(h->time_scale),
                 "this peer runs " + algorithm_label(config_.grid_config) + " at time scale " +
                     std::to_string(config_.time_scale) + "; you run " + h->algorithm + " at " +
                     std::to_string(h->time_scale));
    return;
  }
  const PeerLink& link = peers_[h->peer];
  if (link.ready && link.connection && link.connection != connection && link.connection->is_open()) {
    // Swapping it in let one forged hello make A believe C restarted (issue
    // 18). The real partner, back after a crash, is let in once its old link
    // has closed -- at once on a reset, else after --peer-silence.
    refuse_hello(connection, *h, "hello second", protocol::Error::Code::not_accepted,
                 "a second connection for " + h->name + ", whose link from " + link.connection->remote() + " is live",
                 "peer " + h->name + " is connected already; a second connection is refused");
    return;
  }
  // One early epoch would push every peer's virtual time forward (past the
  // wire's bound, once, for good): a partner's is shared only near our own.
  if (const auto why = net::partner_epoch_refusal(clock_.epoch_unix_us(), h->epoch_unix_us, config_.max_epoch_skew,
                                                  config_.time_scale, net::ScaledClock::unix_now_us())) {
    refuse_hello(connection, *h, "hello epoch", protocol::Error::Code::config_mismatch, *why,
                 name_of(config_.self) + " refuses your epoch: " + *why);
    return;
  }
  if (clock_.adopt_epoch(h->epoch_unix_us)) {
    if (journal_) {
      try {
        journal_->save_epoch(clock_.epoch_unix_us());
      } catch (const JournalError& e) {
        fail_stop(kExitStorage, std::string("journal write failed: ") + e.what());
      }
    }
    log_event(spdlog::level::info, "adopted " + h->name + "'s earlier epoch, " + net::utc_text(clock_.epoch_unix_us()) +
                                       " (--epoch-unix-us " + std::to_string(clock_.epoch_unix_us()) + ")");
  }
  if (!dialed) connection->send(hello());
  peer_up(h->peer, connection, *h);
}

void PeerDaemon::peer_up(ServerIndex peer, const std::shared_ptr<net::Connection>& connection,
                         const protocol::Hello& hello) {
  PeerLink& link = peers_[peer];
  const bool restarted = link.boot_id != 0 && hello.boot_id != link.boot_id && link.down_since;
  if (restarted && !hello.journaled) {
    // It restarted, empty: what we had committed to it will never run there.
    log_event(spdlog::level::warn, "peer " + name_of(peer) + " restarted: jobs committed to it run again");
    core_->on_peer(peer, PeerState::restarted, "it restarted", now());
    waiting_for_link_.erase(peer);  // its inputs and outputs belong to jobs it no longer has
    settle();
  }
  link.boot_id = hello.boot_id;
  link.down_since.reset();
  if (link.connection && link.connection != connection && link.connection->is_open()) {
    link.connection->close("replaced by a new connection");
  }
  link.connection = connection;
  link.ready = true;
  connection->set_idle_timeout(config_.peer_silence);  // its heartbeats keep the link open
  std::weak_ptr<net::Connection> weak = connection;
  connection->start(
      [this, peer, weak](WireMessage m) {
        if (peers_[peer].connection == weak.lock()) on_peer_message(peer, std::move(m));
      },
      [this, peer, weak](const std::string& reason) {
        if (peers_[peer].connection == weak.lock()) peer_down(peer, reason);
      });
  log_event(spdlog::level::info, "peer " + name_of(peer) + " connected (" + connection->remote() + ")");
  if (restarted && hello.journaled) {
    // Back from its journal: it kept what it had promised, lost what was in
    // flight; the core asks it again about what was committed to it.
    log_event(spdlog::level::warn, "peer " + name_of(peer) + " restarted from its journal: hand-offs asked again");
    core_->on_peer(peer, PeerState::recovered, "it restarted from its journal", now());
  } else {
    core_->on_peer(peer, PeerState::reachable, "connected", now());
  }
  settle();
  const auto pending = waiting_for_link_.find(peer);
  if (pending != waiting_for_link_.end()) {
    const auto transfers = std::move(pending->second);
    waiting_for_link_.erase(pending);
    for (const auto& [key, transfer] : transfers) stage(transfer);
  }
}

void PeerDaemon::peer_down(ServerIndex peer, const std::string& reason) {
  PeerLink& link = peers_[peer];
  const bool was_ready = link.ready;
  link.ready = false;
  link.connection.reset();
  if (was_ready) log_event(spdlog::level::warn, "peer " + name_of(peer) + " disconnected: " + reason);
  // Offers it had not accepted come back now. Jobs committed to it stay its
  // own for peer_lost_after: back sooner, it still has them (or, with a new
  // boot id, restarted empty and they run again); gone longer, they end as
  // lost (housekeeping_loop).
  if (!link.down_since) {
    link.down_since = now();
    link.down_reason = reason;
  }
  // What it was sending us starts again from the beginning when it is back.
  for (auto it = receiving_.begin(); it != receiving_.end();) {
    it = it->second.from == peer ? receiving_.erase(it) : std::next(it);
  }
  core_->on_peer(peer, PeerState::unreachable, reason, now());
  settle();
}

bool PeerDaemon::send_to(ServerIndex peer, const WireMessage& message) {
  const PeerLink& link = peers_.at(peer);
  if (!link.ready || !link.connection || !link.connection->is_open()) return false;
  link.connection->send(message);
  return true;
}

// ---- peer messages -------------------------------------------------------------------

void PeerDaemon::on_peer_message(ServerIndex from, WireMessage message) {
  // Every kind of message is handled here, or the build fails.
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (is_alternative_v<T, protocol::Message>) {
          if constexpr (std::is_same_v<T, protocol::JobOffer>) {
            // Ids carry their origin (model/ids.hpp): one outside its origin's
            // range would be confused with another peer's job.
            if (origin_in_id(m.job.id) != from) {
              send_to(from, protocol::JobReject{m.job.id, m.attempt, protocol::RejectReason::out_of_range});
              return;
            }
          }
          if constexpr (std::is_same_v<T, protocol::JobReject>) {
            // Once a minute per partner and reason: the core backs off, but
            // a grid of refusing partners would still fill the log.
            const std::string reason = protocol::describe(m.reason);
            if (const auto held = refusals_.pass("peer " + name_of(from), "offer refused: " + reason,
                                                 std::chrono::steady_clock::now())) {
              log_event(spdlog::level::info,
                        "job " + std::to_string(m.job) + " (attempt " + std::to_string(m.attempt) + ") refused by " +
                            name_of(from) + ": " + reason +
                            (*held > 0 ? " [and " + std::to_string(*held) + " more such refusals since the last]"
                                       : std::string()));
            }
          }
          core_->on_message(from, m, now());
          settle();
        } else if constexpr (std::is_same_v<T, protocol::TransferBegin>) {
          on_transfer_begin(from, m);
        } else if constexpr (std::is_same_v<T, protocol::DataChunk>) {
          on_chunk(from, m);
        } else if constexpr (std::is_same_v<T, protocol::Completion>) {
          log_->debug("job {} finished on {}; output on its way", m.job, name_of(from));
        } else if constexpr (std::is_same_v<T, protocol::Heartbeat>) {
          // liveness only: TCP tells us when the peer is gone
        } else if constexpr (std::is_same_v<T, protocol::Error>) {
          log_event(spdlog::level::warn,
                    "peer " + name_of(from) + " reports " + protocol::to_string(m.code) + ": " + m.detail);
        } else if constexpr (std::is_same_v<T, protocol::Hello> || is_alternative_v<T, protocol::ClientRequest> ||
                             is_alternative_v<T, protocol::ClientReply>) {
          log_event(spdlog::level::warn, "peer " + name_of(from) + " sent " + protocol::message_name(message) +
                                             ", which peers do not send one another; disconnecting it");
          peers_[from].connection->fail(protocol::Error::Code::not_accepted,
                                        std::string(protocol::message_name(message)) + " is not a peer message");
        } else {
          static_assert(kUnhandled<T>, "a wire message peers may receive is not handled");
        }
      },
      message);
}

void PeerDaemon::on_transfer_begin(ServerIndex from, const protocol::TransferBegin& begin) {
  Receiving receiving{begin, from, 0, std::chrono::steady_clock::now()};
  if (begin.payload_bytes == 0) {
    transfer_complete(receiving);
    return;
  }
  const auto open = static_cast<std::size_t>(std::count_if(
      receiving_.begin(), receiving_.end(), [&](const auto& entry) { return entry.second.from == from; }));
  if (open >= config_.max_open_transfers && receiving_.count({begin.job, begin.output}) == 0U) {
    log_event(spdlog::level::warn, "peer " + name_of(from) + " opened more than " +
                                       std::to_string(config_.max_open_transfers) + " transfers; disconnecting it");
    peers_[from].connection->fail(protocol::Error::Code::malformed,
                                  "more than " + std::to_string(config_.max_open_transfers) + " transfers open");
    return;
  }
  receiving_[{begin.job, begin.output}] = receiving;  // a repeated header starts the transfer again
}

void PeerDaemon::on_chunk(ServerIndex from, const protocol::DataChunk& chunk) {
  const auto it = receiving_.find({chunk.job, chunk.output});
  if (it == receiving_.end() || it->second.from != from) {
    log_->debug("data for job {} from {} without a transfer header; dropped", chunk.job, name_of(from));
    return;
  }
  it->second.received += chunk.payload.size();
  if (it->second.received < it->second.header.payload_bytes) return;
  const Receiving done = it->second;
  receiving_.erase(it);
  // The achieved rate of the link as shaped (docker/testbed checks it against
  // the topology's bandwidth): payload bytes over real seconds since the header.
  const double real_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - done.began).count();
  log_->info("received {} of job {} from {}: {} payload bytes in {:.3f} s real ({:.2f} Mb/s)",
             done.header.output ? "output" : "input", done.header.job, name_of(from), done.received, real_s,
             real_s > 0 ? static_cast<double>(done.received) * 8 / real_s / 1e6 : 0.0);
  transfer_complete(done);
}

void PeerDaemon::transfer_complete(const Receiving& receiving) {
  const protocol::TransferBegin& h = receiving.header;
  const DataTransfer transfer{h.output ? DataTransfer::Kind::output : DataTransfer::Kind::input,
                              h.job,
                              receiving.from,
                              config_.self,
                              h.bytes,
                              h.attempt,
                              h.start,
                              h.finish};
  core_->on_transfer_done(transfer, now());  // a duplicate or unasked one is ignored there
  settle();
}

// ---- client messages ------------------------------------------------------------------

bool PeerDaemon::allowed(const std::shared_ptr<net::Connection>& client, const WireMessage& message) {
  const auto& who = client->identity();
  if (!who) return true;  // plaintext: whoever reaches the port (loopback experiments)
  const bool operates = std::holds_alternative<protocol::Drain>(message) ||
                        std::holds_alternative<protocol::Undrain>(message) ||
                        std::holds_alternative<protocol::Shutdown>(message);
  if (operates) {
    log_event(spdlog::level::info, std::string(protocol::message_name(message)) + " asked by " +
                                       std::string(net::to_string(who->role)) + " " + who->name);
  }
  if (!operates || who->role == net::Role::operator_role) return true;
  log_event(spdlog::level::warn, std::string(protocol::message_name(message)) + " refused to " +
                                     std::string(net::to_string(who->role)) + " " + who->name);
  client->fail(protocol::Error::Code::not_accepted, std::string(protocol::message_name(message)) +
                                                        " needs an operator's certificate; yours is a " +
                                                        std::string(net::to_string(who->role)) + "'s");
  return false;
}

void PeerDaemon::on_client_message(const std::shared_ptr<net::Connection>& client, WireMessage message) {
  if (!allowed(client, message)) return;
  // Every kind of message is handled here, or the build fails.
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, protocol::Submit>) {
          on_submit(client, m);
        } else if constexpr (std::is_same_v<T, protocol::SubmitBag>) {
          // All of it before anything else is read: the bag's round (under
          // --bag-grouping) cannot close on a reply before its last member.
          // One journal transaction for the whole bag (settle), then its acknowledgements.
          std::vector<protocol::SubmitAck> acks;
          acks.reserve(m.jobs.size());
          for (const Job& job : m.jobs) acks.push_back(accept_submission(job));
          settle();
          for (const protocol::SubmitAck& ack : acks) client->send(ack);
        } else if constexpr (std::is_same_v<T, protocol::StatusRequest>) {
          client->send(status());
        } else if constexpr (std::is_same_v<T, protocol::ResultsRequest>) {
          protocol::ResultsReply reply;
          reply.total = results_.size();
          const std::size_t max =
              std::min<std::size_t>(m.max == 0 ? protocol::kMaxResultsPerReply : m.max, protocol::kMaxResultsPerReply);
          for (std::size_t i = m.from; i < results_.size() && reply.records.size() < max; ++i) {
            reply.records.push_back(results_[i]);
          }
          client->send(reply);
        } else if constexpr (std::is_same_v<T, protocol::Drain>) {
          draining_ = true;
          core_->set_draining(true);
          log_event(spdlog::level::info, "draining: no new submissions or offers");
          client->send(protocol::Ack{});
        } else if constexpr (std::is_same_v<T, protocol::Undrain>) {
          if (stopping_ || time_ended_) {
            client->fail(
                protocol::Error::Code::not_accepted,
                name_of(config_.self) +
                    (stopping_ ? " is shutting down" : "'s virtual time has reached the end of the grid's time"));
            return;
          }
          draining_ = false;
          core_->set_draining(false);
          log_event(spdlog::level::info, "undrained: taking submissions and offers again");
          client->send(protocol::Ack{});
        } else if constexpr (std::is_same_v<T, protocol::Shutdown>) {
          client->send(protocol::Ack{});
          shutdown("asked by gridctl");
        } else if constexpr (std::is_same_v<T, protocol::Hello> || is_alternative_v<T, protocol::ClientReply> ||
                             is_alternative_v<T, protocol::PeerMessage> || is_alternative_v<T, protocol::Message>) {
          client->fail(protocol::Error::Code::not_accepted,
                       std::string(protocol::message_name(message)) + " is not a client request");
        } else {
          static_assert(kUnhandled<T>, "a wire message clients may send is not handled");
        }
      },
      message);
}

void PeerDaemon::on_submit(const std::shared_ptr<net::Connection>& client, const protocol::Submit& submit) {
  const protocol::SubmitAck ack = accept_submission(submit.job);
  settle();  // journaled first (under --state-dir): an acknowledged job survives a kill -9
  client->send(ack);
}

protocol::SubmitAck PeerDaemon::accept_submission(const Job& submitted) {
  if (draining_ || stopping_) {
    return protocol::SubmitAck{0, false,
                               name_of(config_.self) + (time_ended_ ? "'s virtual time has reached the end of the "
                                                                      "grid's time; start a new grid"
                                                                    : " is draining; submit elsewhere")};
  }
  if (next_job_ > kMaxJobCounter) {
    return protocol::SubmitAck{
        0, false, name_of(config_.self) + " has used up the job ids of this start (16,777,215); restart it"};
  }
  Job job = submitted;
  job.id = job_id_of(config_.self, job_sequence_of(incarnation_, next_job_++));
  job.origin = config_.self;
  job.submit = now();
  if (job.requested_time <= Duration::zero()) job.requested_time = std::max(job.run_time, seconds(1));
  ++submitted_;
  core_->submit(job, job.submit);
  return protocol::SubmitAck{job.id, true, {}};
}

protocol::PeerStatus PeerDaemon::status() {
  protocol::PeerStatus s;
  s.peer = config_.self;
  s.name = name_of(config_.self);
  s.now = now();
  core_->advance(s.now);
  settle();
  const ServerLoad load = core_->load(config_.self);
  s.grid_queue = static_cast<std::uint32_t>(load.grid_queue);
  s.local_queue = static_cast<std::uint32_t>(load.local_queue);
  s.running = static_cast<std::uint32_t>(load.running);
  s.awaiting_input = static_cast<std::uint32_t>(load.awaiting_input);
  s.ru = load.ru;
  for (ServerIndex p = 0; p < peers_.size(); ++p) {
    if (peers_[p].ready) s.connected.push_back(p);
  }
  s.completed = results_.size() - lost_ - rejected_;
  s.submitted = submitted_;
  s.jobs_sent = core_->counters().jobs_sent;
  s.jobs_received = core_->counters().jobs_received;
  s.draining = draining_;
  s.lost = lost_;
  s.recovered = recovered_;
  s.incarnation = incarnation_;
  return s;
}

// ---- the core ---------------------------------------------------------------------------

void PeerDaemon::settle() {
  // Carrying out an output never feeds the core: one pass takes them all.
  std::vector<SchedulerOutput> outputs = core_->take_outputs();
  if (journal_) {
    // Group commit: what the core asked to keep, and the results of jobs that
    // ended, in one transaction synced before anything of the batch is sent.
    std::vector<const Persist*> persists;
    std::vector<protocol::ResultRecord> ended;
    for (const SchedulerOutput& output : outputs) {
      if (const auto* persist = std::get_if<Persist>(&output)) persists.push_back(persist);
      if (const auto* end = std::get_if<JobEnded>(&output)) ended.push_back(result_of(*end));
    }
    try {
      journal_->commit(persists, ended);
    } catch (const JournalError& e) {
      fail_stop(kExitStorage, std::string("journal write failed: ") + e.what());
    }
  }
  for (SchedulerOutput& output : outputs) carry_out(output);
  reschedule();
}

void PeerDaemon::record_end(protocol::ResultRecord result) {
  if (results_.size() < config_.max_results) results_.push_back(std::move(result));
}

protocol::ResultRecord PeerDaemon::result_of(const JobEnded& ended) const {
  if (ended.outcome != JobOutcome::lost) return {ended.record, ended.outcome, ended.reason};
  JobRecord record = ended.record;
  record.start = record.finish = record.end = TimePoint{};  // it never ran to our knowledge
  return {record, ended.outcome, "peer " + name_of(record.executed_on) + " " + ended.reason};
}

void PeerDaemon::carry_out(SchedulerOutput& output) {
  std::visit(Overloaded{
                 [&](const SendMessage& send) {
                   // A message to a peer that is not connected is lost: the
                   // core's time-outs and retries cover every kind.
                   if (!send_to(send.to, protocol::to_wire(send.message))) {
                     log_->debug("{} to {} not sent: not connected",
                                 protocol::message_name(protocol::to_wire(send.message)), name_of(send.to));
                   }
                 },
                 [&](const StartTransfer& start) {
                   const DataTransfer& transfer = start.transfer;
                   if (transfer.kind == DataTransfer::Kind::output) {
                     send_to(transfer.to, protocol::Completion{transfer.job, transfer.start, transfer.finish});
                   }
                   stage(transfer);
                 },
                 [&](const JobEnded& ended) { record_outcome(ended); },
                 [&](const Persist& /*kept*/) {},  // in the journal already (settle)
             },
             output);
}

void PeerDaemon::record_outcome(const JobEnded& ended) {
  const std::string id = std::to_string(ended.record.id);
  protocol::ResultRecord result = result_of(ended);
  switch (ended.outcome) {
    case JobOutcome::completed:
      log_->debug("job {} ended: response {:.1f} s{}", ended.record.id, to_seconds(ended.record.response()),
                  ended.record.recoveries > 0 ? fmt::format(", run again after {} restart(s)", ended.record.recoveries)
                                              : std::string());
      break;
    case JobOutcome::rejected:
      ++rejected_;
      log_event(spdlog::level::warn, "job " + id + " rejected: " + ended.reason);
      break;
    case JobOutcome::lost:
      ++lost_;
      log_event(spdlog::level::warn, "job " + id + " lost: " + result.reason);
      break;
  }
  record_end(std::move(result));
}

void PeerDaemon::stage(const DataTransfer& transfer) {
  const PeerLink& link = peers_.at(transfer.to);
  if (!link.ready || !link.connection) {
    wait_for_link(transfer);
    return;
  }
  asio::co_spawn(io_, send_transfer(link.connection, transfer), stop_on_exception("staging data"));
}

net::awaitable<void> PeerDaemon::send_transfer(std::shared_ptr<net::Connection> connection, DataTransfer transfer) {
  const auto payload =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(transfer.bytes) / std::max(config_.data_scale, 1e-9)));
  protocol::TransferBegin begin;
  begin.job = transfer.job;
  begin.attempt = transfer.attempt;
  begin.output = transfer.kind == DataTransfer::Kind::output;
  begin.bytes = transfer.bytes;
  begin.payload_bytes = payload;
  begin.start = transfer.start;
  begin.finish = transfer.finish;
  connection->send(begin);
  // One chunk at a time: control messages interleave, and the socket's pace
  // (shaped links included) sets the transfer's.
  for (std::uint64_t sent = 0; sent < payload;) {
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(config_.chunk_bytes, payload - sent));
    protocol::DataChunk chunk{transfer.job, begin.output, std::vector<std::uint8_t>(size, 0)};
    if (!co_await connection->send_and_wait(chunk)) {
      // The link went down: send it all again once it is back.
      log_->debug("staging of job {} to {} interrupted; will resend", transfer.job, name_of(transfer.to));
      wait_for_link(transfer);
      co_return;
    }
    sent += size;
  }
}

void PeerDaemon::wait_for_link(const DataTransfer& transfer) {
  // One entry per job and direction: a transfer staged again replaces the
  // earlier one, so the map holds no more than the jobs under way with that peer.
  waiting_for_link_[transfer.to][{transfer.job, transfer.kind}] = transfer;
}

void PeerDaemon::reschedule() {
  deadline_timer_.cancel();
}

net::awaitable<void> PeerDaemon::deadline_loop() {
  while (!stopping_ || holds_work()) {
    const TimePoint next = core_->next_deadline();
    deadline_timer_.expires_after(next == kNever ? std::chrono::hours(1) : clock_.real_delay_until(next));
    boost::system::error_code ec;
    co_await deadline_timer_.async_wait(asio::redirect_error(net::use_awaitable, ec));
    if (ec == asio::error::operation_aborted) continue;  // a new deadline
    core_->advance(now());
    settle();
  }
}

bool PeerDaemon::holds_work() const {
  const ServerLoad load = core_->load(config_.self);
  return load.grid_queue > 0 || load.local_queue > 0 || load.running > 0 || core_->open_handoffs() > 0 ||
         !receiving_.empty();
}

net::awaitable<void> PeerDaemon::housekeeping_loop() {
  asio::steady_timer tick(io_);
  std::uint64_t ticks = 0;
  while (true) {
    tick.expires_after(std::chrono::milliseconds(100));
    boost::system::error_code ec;
    co_await tick.async_wait(asio::redirect_error(net::use_awaitable, ec));
    const TimePoint t = now();
    watch_virtual_time(t);
    trim_after_flood();
    for (ServerIndex p = 0; p < peers_.size(); ++p) {
      PeerLink& link = peers_[p];
      if (link.ready || !link.down_since || t - *link.down_since < config_.peer_lost_after) continue;
      core_->on_peer(p, PeerState::gone, link.down_reason, t);
      link.down_since.reset();  // given up: a later return changes nothing for those jobs
      settle();
    }
    if (++ticks % 10 == 0) {
      for (ServerIndex p = 0; p < peers_.size(); ++p) send_to(p, protocol::Heartbeat{t});
    }
    if (stopping_ && (!holds_work() || std::chrono::steady_clock::now() >= stop_deadline_)) {
      if (holds_work()) {
        const ServerLoad load = core_->load(config_.self);
        log_event(spdlog::level::warn, "stopping with work held: grid queue " + std::to_string(load.grid_queue) +
                                           ", local queue " + std::to_string(load.local_queue) + ", running " +
                                           std::to_string(load.running) + ", hand-offs " +
                                           std::to_string(core_->open_handoffs()));
      } else {
        log_event(spdlog::level::info, "stopped: nothing held");
      }
      for (auto& link : peers_) {
        if (link.connection) link.connection->close("shutting down");
      }
      for (const auto& client : std::set(clients_)) client->close("shutting down");
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      io_.stop();
      co_return;
    }
  }
}

void PeerDaemon::watch_virtual_time(TimePoint t) {
  const net::VirtualTimeStage stage = net::stage_of(t);
  if (stage == net::VirtualTimeStage::running) return;
  if (!warned_near_end_) {
    warned_near_end_ = true;
    log_event(spdlog::level::warn,
              "virtual time is within " + std::to_string(protocol::kVirtualTimeHorizonUs / protocol::kYearUs) +
                  " years of the end of the grid's time: at time scale " + std::to_string(config_.time_scale) +
                  " about " +
                  net::human_duration(net::real_time_until(t, protocol::kVirtualTimeEndUs, config_.time_scale)) +
                  " of real time are left before this peer takes no new work; drain the grid, collect its results "
                  "and start a new grid with a new epoch (docs/security.md, \"Virtual time\")");
  }
  if (stage >= net::VirtualTimeStage::ended && !time_ended_) {
    time_ended_ = true;
    draining_ = true;
    core_->set_draining(true);
    log_event(spdlog::level::err,
              "the grid's virtual time has reached its end: this peer takes no new work (it finishes what it holds, "
              "and gridctl results still answers); start a new grid with a new epoch (docs/security.md, \"Virtual "
              "time\")");
  }
  if (stage == net::VirtualTimeStage::beyond) {
    shutdown("the grid's virtual time ran out: what this peer sends would leave the wire's bounds", kExitTimeEnded);
  }
}

void PeerDaemon::trim_after_flood() {
  // glibc keeps what a flood of connections freed in its arenas; once the
  // flood is over (held connections fell to a quarter of their peak) it is
  // given back, so a peer's memory returns to what it holds.
  const std::size_t open = admission_.open();
  connections_peak_ = std::max(connections_peak_, open);
  if (connections_peak_ < 64 || open * 4 > connections_peak_) return;
  ::malloc_trim(0);
  connections_peak_ = open;
}

void PeerDaemon::shutdown(const std::string& why, int code) {
  if (code != kExitStopped && exit_code_ == kExitStopped) exit_code_ = code;
  if (stopping_) return;
  stopping_ = true;
  draining_ = true;
  core_->set_draining(true);
  stop_deadline_ = std::chrono::steady_clock::now() + config_.shutdown_grace;
  log_event(spdlog::level::info, "shutting down (" + why + "): finishing what is held, at most " +
                                     std::to_string(config_.shutdown_grace.count()) + " ms");
}

}  // namespace gridpeer::daemon
