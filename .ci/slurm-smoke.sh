#!/usr/bin/env bash
# CI: a real single-node SLURM cluster (Debian's slurm-wlm and munge) on this
# machine, and the smoke grid of one study run through Snakemake's SLURM
# executor (profiles/slurm): every raw run is a batch job.
#
#   .ci/slurm-smoke.sh [STUDY]        STUDY: key_cache (default) or another study's target
#
# Installs slurm-wlm and munge when missing and run as root; prints a SKIP line
# and exits 0 when it cannot. Starts munged (if none runs), slurmctld and
# slurmd with a config of its own in a temporary folder, stops what it started.
# No slurmdbd: the executor asks squeue for job states (MinJobAge keeps
# finished jobs visible), so no accounting database is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
STUDY=${1:-key_cache}
PYTHON=${PYTHON:-$REPO/.venv/bin/python}

skip() { echo "slurm-smoke: SKIP: $*"; exit 0; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null || skip "slurmctld/slurmd/munged missing and cannot be installed (not root or no apt-get)"
  echo "slurm-smoke: installing slurm-wlm and munge" >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge; } >/dev/null \
    || skip "apt-get install slurm-wlm munge failed"
fi
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs as their users"
"$PYTHON" -c 'import snakemake_executor_plugin_slurm' 2>/dev/null \
  || { echo "slurm-smoke: $PYTHON lacks snakemake-executor-plugin-slurm (pip install -e '.[cluster]')" >&2; exit 1; }

STATE=$(mktemp -d "${TMPDIR:-/tmp}/dbrepro-slurm.XXXXXX")
chmod 755 "$STATE"
started=()
cleanup() {
  for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${started[@]}"; do while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done; done
  [ -n "${KEEP_STATE:-}" ] || rm -rf "$STATE"
}
trap cleanup EXIT

# munge: one key, one daemon (a running one is reused).
if ! pgrep -x munged >/dev/null; then
  [ -s /etc/munge/munge.key ] || mungekey --create --keyfile /etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- munged
  started+=("$(pgrep -x -n munged)")
fi
munge -n | unmunge >/dev/null || { echo "slurm-smoke: munge does not work" >&2; exit 1; }

# One node, this machine, on loopback; the controller keeps finished jobs for
# 10 minutes so that squeue can report their end state.
NODE=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
mkdir -p "$STATE/ctld" "$STATE/spool"
export SLURM_CONF=$STATE/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=dbrepro
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=600
ReturnToService=2
SlurmctldParameters=enable_configless
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=main Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
daemon_pid() {  # daemon_pid PIDFILE: the pid a daemon wrote, waiting for it
  for _ in $(seq 50); do [ -s "$1" ] && { cat "$1"; return; }; sleep 0.2; done
  echo "slurm-smoke: no $1" >&2; return 1
}
if ss -ltn 2>/dev/null | grep -q ":${SLURMCTLD_PORT:-6817} "; then
  skip "port ${SLURMCTLD_PORT:-6817} is taken (a slurmctld runs already?); set SLURMCTLD_PORT and SLURMD_PORT"
fi
slurmctld -f "$SLURM_CONF" -i
started+=("$(daemon_pid "$STATE/slurmctld.pid")")
# Configless slurmd: it fetches the config from slurmctld and caches it where
# commands inside jobs look (/run/slurm/conf); the executor's job steps drop
# SLURM_* variables, SLURM_CONF among them.
slurmd --conf-server "127.0.0.1:${SLURMCTLD_PORT:-6817}" -N "$NODE"
started+=("$(daemon_pid "$STATE/slurmd.pid")")
for _ in $(seq 60); do
  sinfo --noheader --states=idle --format=%n 2>/dev/null | grep -qx "$NODE" && break
  sleep 1
done
sinfo --noheader --states=idle --format=%n | grep -qx "$NODE" \
  || { echo "slurm-smoke: node $NODE never became idle" >&2; tail -20 "$STATE/slurmctld.log" "$STATE/slurmd.log" >&2; exit 1; }
echo "slurm-smoke: cluster up: $(sinfo --noheader --format='%P %D nodes %C cpus(A/I/O/T) %t')"

# The smoke grid of $STUDY through the executor, in a fresh work folder.
WORK=$STATE/work
mkdir -p "$WORK"
"$PYTHON" -m snakemake "$STUDY" -s "$REPO/Snakefile" --directory "$WORK" \
  --profile "$REPO/profiles/slurm" --configfile "$REPO/config/smoke.yaml" \
  --slurm-no-account --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2 \
  --slurm-keep-successful-logs \
  --seconds-between-status-checks 2
jobs=$(find "$WORK/.snakemake/slurm_logs" -name '*.log' | wc -l)
records=$(find "$WORK/results/raw" -name '*.json' | wc -l)
echo "slurm-smoke: $STUDY: $records raw records, $jobs SLURM job logs"
[ "$jobs" -gt 0 ] && [ "$records" -gt 0 ] || { echo "slurm-smoke: no job ran through SLURM" >&2; exit 1; }
echo "slurm-smoke: OK"
