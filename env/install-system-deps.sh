#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, if missing:
# a C++20 compiler, GoogleTest (for the engine's tests) and valgrind (for
# instruction counts), ccache. Everything Python comes from pyproject.toml.
set -euo pipefail

need=()
command -v g++ >/dev/null || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev googletest)
command -v valgrind >/dev/null || need+=(valgrind)
command -v ccache >/dev/null || need+=(ccache)  # shares objects between build trees
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
# Optional (`--fuzz`, used by make fuzz): clang with libFuzzer; Debian ships
# libFuzzer in the compiler-rt package.
if [ "${1:-}" = "--fuzz" ]; then
  command -v clang++ >/dev/null || need+=(clang)
  compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null || need+=(libclang-rt-14-dev)
fi
# Optional (`--paper`, used by make paper and the paper's test): latexmk and
# the LaTeX packages paper/paper.tex uses (as in env/debian-tex-packages.txt).
if [ "${1:-}" = "--paper" ]; then
  command -v latexmk >/dev/null || need+=(latexmk)
  kpsewhich booktabs.sty >/dev/null 2>&1 || need+=(texlive-latex-base texlive-latex-recommended)
fi

# Optional (`--docker`, used by env/build-image.sh where no registry answers):
# debootstrap, to bootstrap the pinned Debian release as the image's base.
if [ "${1:-}" = "--docker" ]; then
  command -v debootstrap >/dev/null || need+=(debootstrap)
fi

# Optional (`--mariadb`, run by E2's key_cache_mariadb rules): the real
# MariaDB server (MyISAM with key_cache_segments), its command-line client and
# sysbench (select_random_points.lua), to run beside the model. The -core
# packages hold only the binaries: no system service is installed or started;
# the workflow runs a private server from its own datadir and socket.
if [ "${1:-}" = "--mariadb" ]; then
  [ -x /usr/sbin/mariadbd ] && command -v mariadb-install-db >/dev/null || need+=(mariadb-server-core)
  command -v mariadb >/dev/null || need+=(mariadb-client-core)
  command -v sysbench >/dev/null || need+=(sysbench)
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing system packages: ${need[*]}; install them with: sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "installing system packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
