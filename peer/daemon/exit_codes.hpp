#pragma once
// What gridpeer's exit status tells its supervisor (docs/operating.md; the
// systemd unit restarts on every failure but the two that need an operator).
namespace gridpeer::daemon {

/// Stopped as asked (SIGINT, SIGTERM, gridctl shutdown).
inline constexpr int kExitStopped = 0;
/// Refused to start: a bad option or topology, a damaged journal, a state
/// directory another process holds, an epoch out of bounds. Restarting as
/// it is does not help.
inline constexpr int kExitRefused = 2;
/// An error nothing else caught (a bug): restarted, it recovers from its journal.
inline constexpr int kExitInternal = 70;  // EX_SOFTWARE
/// The journal could not be written or read (a full disk, an I/O error):
/// nothing the failed write guarded was acknowledged; restarted once the
/// storage is fixed, the peer recovers what was committed.
inline constexpr int kExitStorage = 74;  // EX_IOERR
/// The grid's virtual time ran out (docs/security.md, "Virtual time"): it
/// needs a new epoch, not a restart.
inline constexpr int kExitTimeEnded = 78;  // EX_CONFIG

}  // namespace gridpeer::daemon
