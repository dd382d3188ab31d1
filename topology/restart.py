"""Stopping a worker so that its supervisor restarts it (compose and k8s restart on exit).

For states a worker cannot leave by itself (a table write that failed, a table restore that
hangs): exit at once with EX_TEMPFAIL, committing nothing, so the messages behind it are read
again by the restarted worker.
"""

from __future__ import annotations

import logging
import os
from typing import NoReturn

EXIT_TEMPFAIL = 75  # EX_TEMPFAIL: a supervisor should restart the worker


def exit_for_restart(logger: logging.Logger, message: str, *args: object) -> NoReturn:
    """Log `message` as critical, flush the logs and exit with `EXIT_TEMPFAIL` (no cleanup:
    nothing may be committed on the way out)."""
    logger.critical(message, *args)
    logging.shutdown()
    os._exit(EXIT_TEMPFAIL)


__all__ = ["EXIT_TEMPFAIL", "exit_for_restart"]
