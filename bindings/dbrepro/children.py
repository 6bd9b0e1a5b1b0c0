"""Child processes that do not outlive the process that started them."""
from __future__ import annotations

import ctypes
import signal


def die_with_parent(signum: int = signal.SIGTERM) -> None:
    """In a child, before exec (a Popen preexec_fn): the kernel sends it `signum` when
    its parent ends, also by SIGKILL, so that nothing of a stopped run keeps writing
    (Linux's PR_SET_PDEATHSIG; elsewhere nothing is done)."""
    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    except (OSError, AttributeError):
        pass
