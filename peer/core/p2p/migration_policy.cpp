#include "peer/core/p2p/migration_policy.hpp"

#include <stdexcept>

namespace gridpeer {

namespace {

/// Local: a job runs where it was submitted, always.
class LocalOnly final : public MigrationPolicy {
 public:
  explicit LocalOnly(MigrationMoves& moves) : moves_(moves) {}
  void decide(const Job& job, TimePoint now) override { moves_.run_here(job, now); }

 private:
  MigrationMoves& moves_;
};

/// Centralized over messages: the central peer places every job from its
/// ATT queries; with central_home_below_phi, a job that would start soon at
/// home stays there, as under S-I.
class CentralClient final : public MigrationPolicy {
 public:
  CentralClient(MigrationMoves& moves, bool home_below_phi) : moves_(moves), home_below_phi_(home_below_phi) {}
  void decide(const Job& job, TimePoint now) override {
    if (home_below_phi_ && moves_.starts_soon_here(job, now)) {
      moves_.run_here(job, now);
    } else {
      moves_.ask_central(job, now);
    }
  }

 private:
  MigrationMoves& moves_;
  bool home_below_phi_;
};

/// S-I, R-I and Sy-I share Shan et al. §3.1 steps 2-3 -- a job that would
/// start soon enough here stays -- and differ in whom a waiting job asks.
class Migrating : public MigrationPolicy {
 public:
  Migrating(MigrationMoves& moves, MigrationMoves::Ask ask) : moves_(moves), ask_(ask) {}
  void decide(const Job& job, TimePoint now) final {
    if (moves_.starts_soon_here(job, now)) {
      moves_.run_here(job, now);
    } else {
      moves_.wait_in_grid_queue(job, ask_, now);
    }
  }

 protected:
  MigrationMoves& moves_;

 private:
  MigrationMoves::Ask ask_;
};

/// S-I: the sender asks its partners for their ATT at once.
class SenderInitiated final : public Migrating {
 public:
  explicit SenderInitiated(MigrationMoves& moves) : Migrating(moves, MigrationMoves::Ask::partners) {}
};

/// R-I: under-used peers volunteer every period; a waiting job goes to one
/// of them if it is better, or runs here once its wait drops below phi.
class ReceiverInitiated final : public Migrating {
 public:
  explicit ReceiverInitiated(MigrationMoves& moves) : Migrating(moves, MigrationMoves::Ask::nobody) {}
  [[nodiscard]] bool periodic() const override { return true; }
  void on_period(TimePoint now) override { moves_.recheck_waiting(false, now); }
};

/// Sy-I: R-I, but a job with no volunteer in sight asks its partners as S-I.
class SymmetricallyInitiated final : public Migrating {
 public:
  explicit SymmetricallyInitiated(MigrationMoves& moves)
      : Migrating(moves, MigrationMoves::Ask::volunteers_or_partners) {}
  [[nodiscard]] bool periodic() const override { return true; }
  void on_period(TimePoint now) override { moves_.recheck_waiting(!moves_.volunteer_available(now), now); }
};

}  // namespace

std::unique_ptr<MigrationPolicy> make_migration_policy(const GridConfig& config, MigrationMoves& moves) {
  switch (config.algorithm) {
    case GridAlgorithm::local:
      return std::make_unique<LocalOnly>(moves);
    case GridAlgorithm::central:
      if (!config.central_peer) {
        throw std::invalid_argument(
            "a peer runs Centralized only over messages, with a central peer; Shan et al.'s instant-knowledge "
            "reference is the meta-scheduler's");
      }
      return std::make_unique<CentralClient>(moves, config.central_home_below_phi);
    case GridAlgorithm::sender:
      return std::make_unique<SenderInitiated>(moves);
    case GridAlgorithm::receiver:
      return std::make_unique<ReceiverInitiated>(moves);
    case GridAlgorithm::symmetric:
      return std::make_unique<SymmetricallyInitiated>(moves);
  }
  throw std::invalid_argument("unknown grid algorithm");
}

}  // namespace gridpeer
