#include "peer/daemon/client_service.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "peer/model/overloaded.hpp"

namespace gridpeer::daemon {

std::optional<protocol::Error> ClientService::check_role(const protocol::WireMessage& request,
                                                         const std::optional<transport::CertificateIdentity>& who) {
  if (!who) return std::nullopt;  // plaintext: whoever reaches the port (loopback experiments)
  const bool operates = std::holds_alternative<protocol::Drain>(request) ||
                        std::holds_alternative<protocol::Undrain>(request) ||
                        std::holds_alternative<protocol::Shutdown>(request);
  if (!operates) return std::nullopt;
  const std::string name = protocol::message_name(request);
  const std::string role(transport::to_string(who->role));
  log_(spdlog::level::info, name + " asked by " + role + " " + who->name);
  if (who->role == transport::Role::operator_role) return std::nullopt;
  log_(spdlog::level::warn, name + " refused to " + role + " " + who->name);
  return protocol::Error{protocol::Error::Code::not_accepted,
                         name + " needs an operator's certificate; yours is a " + role + "'s"};
}

protocol::ResultsReply ClientService::results(const protocol::ResultsRequest& request) const {
  const auto& all = backend_.results();
  protocol::ResultsReply reply;
  reply.total = all.size();
  const std::size_t max = std::min<std::size_t>(request.max == 0 ? protocol::kMaxResultsPerReply : request.max,
                                                protocol::kMaxResultsPerReply);
  for (std::size_t i = request.from; i < all.size() && reply.records.size() < max; ++i) {
    reply.records.push_back(all[i]);
  }
  return reply;
}

ClientService::Answer ClientService::handle(const protocol::WireMessage& request,
                                            const std::optional<transport::CertificateIdentity>& who) {
  if (auto refused = check_role(request, who)) return {{}, std::move(refused)};
  Answer answer;
  // Every kind of message is handled here, or the build fails.
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, protocol::Submit>) {
          const protocol::SubmitAck ack = backend_.submit(m.job);
          backend_.commit_submissions();  // journaled first: an acknowledged job survives a kill -9
          answer.replies.emplace_back(ack);
        } else if constexpr (std::is_same_v<T, protocol::SubmitBag>) {
          // All of it before anything else is read: the bag's round (under
          // --bag-grouping) cannot close on a reply before its last member.
          // One journal transaction for the whole bag, then its acknowledgements.
          std::vector<protocol::SubmitAck> acks;
          acks.reserve(m.jobs.size());
          for (const Job& job : m.jobs) acks.push_back(backend_.submit(job));
          backend_.commit_submissions();
          for (const protocol::SubmitAck& ack : acks) answer.replies.emplace_back(ack);
        } else if constexpr (std::is_same_v<T, protocol::StatusRequest>) {
          answer.replies.emplace_back(backend_.status());
        } else if constexpr (std::is_same_v<T, protocol::ResultsRequest>) {
          answer.replies.emplace_back(results(m));
        } else if constexpr (std::is_same_v<T, protocol::Drain>) {
          backend_.drain();
          answer.replies.emplace_back(protocol::Ack{});
        } else if constexpr (std::is_same_v<T, protocol::Undrain>) {
          if (auto why = backend_.undrain()) {
            answer.refusal = protocol::Error{protocol::Error::Code::not_accepted, *why};
          } else {
            answer.replies.emplace_back(protocol::Ack{});
          }
        } else if constexpr (std::is_same_v<T, protocol::Shutdown>) {
          answer.replies.emplace_back(protocol::Ack{});
          backend_.stop(m.leave ? "leaving the grid, asked by gridctl" : "asked by gridctl", m.leave);
        } else if constexpr (std::is_same_v<T, protocol::Hello> || is_alternative_v<T, protocol::ClientReply> ||
                             is_alternative_v<T, protocol::PeerMessage> || is_alternative_v<T, protocol::Message> ||
                             is_alternative_v<T, protocol::MembershipMessage>) {
          answer.refusal = protocol::Error{protocol::Error::Code::not_accepted,
                                           std::string(protocol::message_name(request)) + " is not a client request"};
        } else {
          static_assert(kUnhandled<T>, "a wire message clients may send is not handled");
        }
      },
      request);
  return answer;
}

}  // namespace gridpeer::daemon
