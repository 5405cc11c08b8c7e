"""The headless GNOME desktop of Tools/gnome-desktop (mutter, the real
xdg-desktop-portal and its GNOME backend, PipeWire, a bus of its own), for a
tool that shares its virtual monitor through the portal."""
import os
import shlex
import subprocess

from programs import TOOLS

TOOL = os.path.join(TOOLS, "gnome-desktop")
# What Tools/gnome-desktop needs: absent, it exits with this status.
NOT_INSTALLED = 3


class Desktop:
    """`Tools/gnome-desktop start`: `env` is what a program on the desktop needs (bus, runtime dir,
    display), `token` a restore token the desktop knows (it shares the monitor with no dialog)."""

    def __init__(self, width, height, timeout=60):
        done = subprocess.run([TOOL, "start", "--size", f"{width}x{height}"], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"Tools/gnome-desktop start failed ({done.returncode}): {done.stderr.strip()}")
        values = {}
        for line in done.stdout.splitlines():
            if line.startswith("export "):
                key, _, value = shlex.split(line[len("export "):])[0].partition("=")
                values[key] = value
        self.directory = values.pop("GNOME_DESKTOP_DIR")
        self.token = values.pop("GNOME_DESKTOP_TOKEN")
        values.pop("GNOME_DESKTOP_SIZE", None)
        self.env = values
        self.size = (width, height)

    def dialogs_shown(self):
        """Share dialogs the GNOME backend has made: it logs this once for each, never for a restored session."""
        try:
            with open(os.path.join(self.directory, "backend.log"), errors="replace") as f:
                return f.read().count("Failed to associate portal window")
        except OSError:
            return 0

    def stop_screencasts(self):
        """Ends every screen cast from the desktop's side, as its Stop button does."""
        subprocess.run([TOOL, "stop-screencasts", self.directory], check=True, capture_output=True, timeout=30)

    def stop(self):
        subprocess.run([TOOL, "stop", self.directory], capture_output=True, timeout=60)
