"""The API usage logger apistamp's calls go to (as torchvision.utils's)."""

import datetime
import json
import os
import socket
import sys
from types import FunctionType

_logged = set()


def _log_api_usage_once(obj):
    """Log "<defining module>.<name>" once per process: a function by its own
    name, an instance by its class's. Like apistamp's runtime, with
    PYTORCH_API_USAGE_STDERR set it prints `PYTORCH_API_USAGE <event>` on
    stderr, and with APISTAMP_API_USAGE_LOG=<file> it appends one JSON line
    in the runtime's format, which `apistamp report` reads."""
    if not obj.__module__.startswith("imagelib"):
        return
    name = obj.__name__ if isinstance(obj, FunctionType) else obj.__class__.__name__
    event = f"{obj.__module__}.{name}"
    if event in _logged:
        return
    _logged.add(event)
    if os.environ.get("PYTORCH_API_USAGE_STDERR"):
        print(f"PYTORCH_API_USAGE {event}", file=sys.stderr)
    log = os.environ.get("APISTAMP_API_USAGE_LOG")
    if log:
        _append(log, event)


def _environment_rank():
    for variable in ("RANK", "LOCAL_RANK"):
        value = os.environ.get(variable)
        if value is not None:
            return int(value) if value.lstrip("-").isdigit() else value
    return None


def _environment_job_id():
    names = os.environ.get("APISTAMP_JOB_ID_ENV", "SLURM_JOB_ID,TORCHELASTIC_RUN_ID")
    for variable in names.split(","):
        if os.environ.get(variable.strip()):
            return os.environ[variable.strip()]
    return None


def _append(path, event):
    now = datetime.datetime.now(datetime.timezone.utc)
    line = json.dumps({
        "event": event,
        "time": now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "exe": os.path.realpath(sys.executable),
        "rank": _environment_rank(),
        "job_id": _environment_job_id(),
    }, separators=(",", ":"))
    # One write(2) of a whole line to a file opened O_APPEND, as the runtime
    # does: lines of processes sharing the file never interleave.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)
