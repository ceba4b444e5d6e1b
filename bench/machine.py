"""The machine a measurement ran on, as the results record it.

Imported by `report.py` and by the Python parts of `run.sh` and `scripts/*.sh` (which put this
directory on PYTHONPATH).
"""

import os
import platform
import subprocess


def cmd(*args):
    """A command's standard output, stripped, or None when it cannot run or fails."""
    try:
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, or what the platform module knows."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine(**extra):
    """rustc's version, the CPU count and model and the OS, with `extra` fields added."""
    return {"rustc": cmd("rustc", "--version"), "nproc": os.cpu_count(), "cpu_model": cpu_model(),
            "os": platform.platform(), **extra}
