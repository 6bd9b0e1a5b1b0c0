"""A private MariaDB server for one measurement: its own datadir, a Unix
socket and scratch files in a temporary folder, no TCP port
(--skip-networking), never the system service; stopped when the `with`
block ends, whatever ends it.

    with PrivateServer(datadir, options=["--key-buffer-size=16M"]) as server:
        server.query("SELECT VERSION()")

Stopping: SIGTERM (mariadbd's clean shutdown), SIGKILL if it has not exited
within `stop_timeout`, then the temporary folder is removed. The server also
gets SIGTERM if this Python process dies first (PR_SET_PDEATHSIG), so a
killed workflow job does not leave it running.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from .children import die_with_parent

INSTALL_HINT = "install them with env/install-system-deps.sh --mariadb (as root)"
# Where Debian puts them; PATH is searched first.
_SEARCH = {"mariadbd": ["/usr/sbin/mariadbd"], "mariadb-install-db": ["/usr/bin/mariadb-install-db"],
           "mariadb": ["/usr/bin/mariadb"], "sysbench": ["/usr/bin/sysbench"]}


class ToolMissing(RuntimeError):
    """mariadbd, mariadb-install-db, the mariadb client or sysbench is not installed."""


class ServerError(RuntimeError):
    """The private server did not start, or a statement failed."""


def find_tool(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for path in _SEARCH.get(name, []):
        if os.access(path, os.X_OK):
            return path
    raise ToolMissing(f"{name} not found; {INSTALL_HINT}")


def tools() -> dict[str, str]:
    """Paths of the four programs the real-system runs need; ToolMissing names the first one missing."""
    return {name: find_tool(name) for name in _SEARCH}


def missing_tools() -> list[str]:
    """Names of the programs that are not installed (empty: all are)."""
    missing = []
    for name in _SEARCH:
        try:
            find_tool(name)
        except ToolMissing:
            missing.append(name)
    return missing


def _as_root() -> list[str]:
    # mariadbd refuses to run as root unless told so; as another user it runs as that user.
    return ["--user=root"] if os.geteuid() == 0 else []


class PrivateServer:
    """mariadbd on `datadir` (already initialised), reachable only through its socket."""

    def __init__(self, datadir: str | os.PathLike, *, options: Sequence[str] = (), mariadbd: str | None = None,
                 client: str | None = None, start_timeout: float = 120.0, stop_timeout: float = 60.0):
        self.datadir = Path(datadir).resolve()
        self.options = list(options)
        self.mariadbd = mariadbd
        self.client = client
        self.start_timeout, self.stop_timeout = start_timeout, stop_timeout
        self.process: subprocess.Popen | None = None
        self.runtime: Path | None = None

    # -- paths in the temporary folder (short: a socket path has ~100 bytes at most)
    @property
    def socket(self) -> str:
        return str(self.runtime / "mysqld.sock")

    @property
    def error_log(self) -> Path:
        return self.runtime / "error.log"

    @property
    def pid(self) -> int:
        return self.process.pid

    def argv(self) -> list[str]:
        return [self.mariadbd or find_tool("mariadbd"), "--no-defaults", f"--datadir={self.datadir}",
                f"--socket={self.socket}", f"--pid-file={self.runtime / 'mysqld.pid'}", "--skip-networking",
                f"--tmpdir={self.runtime / 'tmp'}", f"--log-error={self.error_log}", *_as_root(), *self.options]

    def __enter__(self) -> PrivateServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        if not self.datadir.is_dir():
            raise ServerError(f"no datadir {self.datadir}")
        self.runtime = Path(tempfile.mkdtemp(prefix="dbrepro-mariadb-"))
        try:
            (self.runtime / "tmp").mkdir()
            with open(self.runtime / "stdout.log", "wb") as out:
                self.process = subprocess.Popen(self.argv(), stdin=subprocess.DEVNULL, stdout=out,
                                                stderr=subprocess.STDOUT, start_new_session=True,
                                                preexec_fn=die_with_parent)
            self._wait_ready()
        except KeyboardInterrupt:
            # Interrupted while the server starts (Ctrl-C, or SIGTERM to the job): a SIGTERM that
            # reaches mariadbd in its startup wedges it (measured: it then answers on the socket, serves
            # no query and ignores every later SIGTERM until killed), so it is stopped once it serves.
            try:
                self._wait_serving()
            finally:
                self.stop()
            raise
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"mariadbd exited with status {self.process.returncode} while starting: "
                                  f"{self.log_tail()}")
            if self._socket_answers():
                return
            time.sleep(0.1)
        raise ServerError(f"mariadbd did not open {self.socket} within {self.start_timeout:g} s: {self.log_tail()}")

    def _wait_serving(self) -> None:
        """Until the server answers a query (or exits, or start_timeout passes)."""
        deadline = time.monotonic() + self.start_timeout
        while self.process is not None and self.process.poll() is None and time.monotonic() < deadline:
            try:
                self.query("SELECT 1", timeout=2.0)
                return
            except (ServerError, subprocess.TimeoutExpired):
                time.sleep(0.1)

    def _socket_answers(self) -> bool:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(self.socket)
            except OSError:
                return False
        return True

    def log_tail(self, lines: int = 8) -> str:
        text = ""
        for name in ("error.log", "stdout.log"):
            try:
                text += (self.runtime / name).read_text(errors="replace")
            except (OSError, TypeError):
                pass
        return " | ".join(text.strip().splitlines()[-lines:]) or "(no log)"

    def stop(self) -> None:
        """SIGTERM, SIGKILL after stop_timeout, then the temporary folder goes. Safe to call twice."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            # A server that started serving stops on one SIGTERM; one signalled while starting would
            # not (start() waits for it to serve first), hence the kill after stop_timeout.
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                pass
            if process.poll() is None:
                process.kill()
                process.wait()
                # Which stop waited, and what the server was doing, before its log goes.
                print(f"mariadbd (pid {process.pid}) did not stop within {self.stop_timeout:g} s of SIGTERM and "
                      f"was killed; its log: {self.log_tail()}", file=sys.stderr)
        if self.runtime is not None:
            shutil.rmtree(self.runtime, ignore_errors=True)
            self.runtime = None

    # -- talking to it (the mariadb client over the socket)
    def query(self, sql: str, timeout: float = 600.0) -> list[list[str]]:
        """Rows of `sql` (tab-separated fields) run by the mariadb client; ServerError if it fails."""
        argv = [self.client or find_tool("mariadb"), "--no-defaults", f"--socket={self.socket}", "--user=root",
                "--batch", "--skip-column-names", "--execute", sql]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise ServerError(f"{sql!r}: {done.stderr.strip() or f'exit status {done.returncode}'}")
        return [line.split("\t") for line in done.stdout.splitlines()]

    def global_status(self, like: str = "Key%", *, also: Sequence[str] = ()) -> dict[str, int]:
        """The numeric global status variables named LIKE `like`, and those named in `also`, in one query."""
        where = f"Variable_name LIKE '{like}'" + "".join(f" OR Variable_name = '{name}'" for name in also)
        return {name: int(value) for name, value in self.query(f"SHOW GLOBAL STATUS WHERE {where}")
                if value.lstrip("-").isdigit()}

    def variable(self, name: str) -> str:
        rows = self.query(f"SELECT @@GLOBAL.{name}")
        return rows[0][0] if rows else ""

    # -- the server process as the kernel sees it
    def cpu_seconds(self) -> float:
        """User + system CPU time of every thread the server has run so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def io(self) -> dict[str, int]:
        """The server's /proc/<pid>/io: rchar (bytes its read calls returned, from the OS page cache
        or not) and read_bytes (bytes the storage had to deliver); empty where it cannot be read."""
        try:
            text = Path(f"/proc/{self.pid}/io").read_text()
        except OSError:
            return {}
        return {name: int(value) for name, value in (line.split(": ") for line in text.splitlines())}

    def anon_huge_bytes(self) -> int | None:
        """Anonymous memory of the server in transparent huge pages (smaps_rollup's AnonHugePages)."""
        try:
            for line in Path(f"/proc/{self.pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("AnonHugePages:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return None

    def thread_count(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return 0

    def context_switches(self) -> dict[str, int]:
        """Voluntary and involuntary context switches summed over the server's live threads."""
        total = {"voluntary": 0, "involuntary": 0}
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                text = (task / "status").read_text()
            except OSError:  # the thread ended between listing and reading
                continue
            for line in text.splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total["voluntary"] += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches:"):
                    total["involuntary"] += int(line.split()[1])
        return total


def resident_bytes(path: str | os.PathLike) -> int | None:
    """How much of a file the OS page cache holds (mincore, through util-linux's fincore);
    None where fincore is missing or fails."""
    fincore = shutil.which("fincore")
    if not fincore:
        return None
    try:
        done = subprocess.run([fincore, "--bytes", "--noheadings", "--raw", "--output", "RES", str(path)],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.strip()
    return int(text) if done.returncode == 0 and text.isdigit() else None
