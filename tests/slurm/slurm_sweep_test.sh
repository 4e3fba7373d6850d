#!/usr/bin/env bash
# gridsim sweep on a real Slurm cluster: a single-node cluster from Debian's
# packages (munged, slurmctld, slurmd) started in a scratch folder on
# loopback, the sweep written as a job array by `gridsim sweep --slurm`,
# submitted with sbatch, its progress read with --status while it runs, and
# the report its last task assembles compared number by number with a
# sweep run here in one process. Skipped (77) where Slurm is not installed
# or cannot start. Bounded: every wait has a limit, 300 s in all.
set -euo pipefail
GRIDSIM=$1
skip() { echo "SKIP: $*"; exit 77; }
for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/setup installs slurmctld, slurmd, slurm-client and munge)"
done
[[ $(id -u) -eq 0 ]] || skip "slurmd runs jobs as their users and must start as root"
WORK=$(mktemp -d /tmp/gridpeer-slurm.XXXXXX)
chmod 755 "$WORK"
export SLURM_CONF=$WORK/slurm.conf
cleanup() {
  scontrol shutdown >/dev/null 2>&1 || true
  for pid_file in "$WORK"/slurmctld.pid "$WORK"/slurmd.pid; do
    [[ -f $pid_file ]] && kill "$(cat "$pid_file" 2>/dev/null)" 2>/dev/null || true
  done
  munged --stop --socket="$WORK/munge/socket" >/dev/null 2>&1 || true
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"
mkdir -p munge state spool log study
chmod 700 munge
# munge: a key of its own, a socket of its own (Slurm is told where).
mungekey --create --keyfile munge/munge.key --force >/dev/null 2>&1
chmod 400 munge/munge.key
munged --force --socket="$WORK/munge/socket" --key-file="$WORK/munge/munge.key" --log-file="$WORK/munge/munged.log" \
  --pid-file="$WORK/munge/munged.pid" --seed-file="$WORK/munge/seed" 2>/dev/null ||
  skip "munged does not start: $(tail -1 munge/munged.log 2>/dev/null)"
chmod 711 munge
NODE=$(hostname -s)
cat >slurm.conf <<CONF
ClusterName=gridpeer-test
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$WORK/munge/socket
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -f "$SLURM_CONF" 2>/dev/null || skip "slurmctld does not start: $(tail -2 log/slurmctld.log 2>/dev/null)"
slurmd -f "$SLURM_CONF" -N "$NODE" 2>/dev/null || skip "slurmd does not start: $(tail -2 log/slurmd.log 2>/dev/null)"
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %t | grep -q idle || skip "the node never came up idle: $(sinfo 2>&1 | tail -1)"

# A small study: two algorithms x three seeds on a synthetic grid.
cat >study.toml <<'TOML'
[experiment]
name = "slurm-check"
title = "S-I against R-I on twelve synthetic servers"
seeds = { first = 1, count = 3 }
[fixed]
topology = "synthetic:12"
workload = "lublin"
jobs = 40
[[axis]]
name = "algorithm"
values = ["si", "ri"]
TOML
"$GRIDSIM" sweep study.toml --out "$WORK/study" --slurm array.sh --shards 3 --slurm-option=--time=10 >wrote.txt
grep -q "3 array tasks of 1 CPU(s)" wrote.txt
grep -q -- "--array=0-2" array.sh
"$GRIDSIM" sweep study.toml --out "$WORK/study" --status --shards 3 >before.txt
grep -q "0 of 6 runs in" before.txt
grep -q "shard 2/3: 0 of 2" before.txt
job=$(sbatch --parsable array.sh)
# Progress from outside the job while it runs, then its end (at most 240 s).
for _ in $(seq 240); do
  squeue -h -j "$job" 2>/dev/null | grep -q . || break
  sleep 1
done
if squeue -h -j "$job" 2>/dev/null | grep -q .; then
  echo "FAIL: the array job did not end in 240 s" >&2; squeue >&2; cat study/slurm/*.log >&2 || true; exit 1
fi
"$GRIDSIM" sweep study.toml --out "$WORK/study" --status --shards 3 >after.txt
cat after.txt
grep -q "6 of 6 runs in (100%)" after.txt
grep -q "complete; the report is written" after.txt
[[ $(ls study/slurm/*.log | wc -l) -eq 3 ]]
# The same sweep in one process: the same numbers.
"$GRIDSIM" sweep study.toml --out "$WORK/local" --threads 2 >/dev/null 2>&1
python3 - "$WORK/study" "$WORK/local" <<'PY'
import json, sys
# Every number of every run and of the summary, timings and the command lines aside.
ASIDE = ("wall_seconds", "jobs_per_second", "command_line", "source", "made_by")
def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in ASIDE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value
def load(folder, name):
    return strip(json.load(open(f"{folder}/{name}")))
for name in ("summary.json", "results.json"):
    assert load(sys.argv[1], name) == load(sys.argv[2], name), f"the Slurm sweep's {name} differs from the local one's"
runs = json.load(open(f"{sys.argv[1]}/results.json"))
print(f"Slurm array of 3 tasks: {len(runs)} runs, every run and the summary equal to a local sweep's")
PY
