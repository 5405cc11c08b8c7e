"""What the benchmarks measure with (python3 stdlib only): the synthetic
screen as raw frames, the receiver's address, /proc figures, and an Xvfb
redrawn by Tools/lib/x11-animator.c."""
import os
import subprocess
import time

from processes import end, spawn_plain

LIB = os.path.dirname(os.path.abspath(__file__))
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def frames_argv(bins, width, height, fps, scenario):
    """`screenshare frames`: the synthetic screen `share --source synthetic`
    captures, as raw bgr0 on stdout, unpaced (give ffmpeg `-re` to pace it)."""
    return [os.path.join(bins, "screenshare"), "frames", "--size", f"{width}x{height}",
            "--fps", str(fps), "--scenario", scenario]


def cpu_seconds(pid):
    """utime + stime of the whole process (all its threads), in seconds; None once gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def status_kb(pid, name):
    """A `kB` figure from /proc/PID/status, such as VmHWM (peak resident set)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def listen_address(receiver, timeout=5):
    found = receiver.wait_for(lambda o: o.get("event") == "listening", timeout)
    if not found:
        raise RuntimeError("screen-receiver did not start listening")
    return found[1]["address"]


ANIMATOR_SOURCE = os.path.join(LIB, "x11-animator.c")


def build_animator(directory):
    """Compiles Tools/lib/x11-animator.c (gcc, libxcb) into `directory`."""
    binary = os.path.join(directory, "x11-animator")
    subprocess.run(["gcc", "-O2", "-o", binary, ANIMATOR_SOURCE, "-lxcb"], check=True)
    return binary


class Xvfb:
    """An Xvfb on a free display number (89 down to 80, clear of the test
    suites, which take 80 up and 99 down), stopped with the other children and
    its socket and lock file removed."""

    def __init__(self, width, height, numbers=range(89, 79, -1)):
        for number in numbers:
            if os.path.exists(f"/tmp/.X11-unix/X{number}") or os.path.exists(f"/tmp/.X{number}-lock"):
                continue
            proc = spawn_plain(["Xvfb", f":{number}", "-screen", "0", f"{width}x{height}x24", "-noreset", "-nolisten", "tcp"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if self._serving(number, proc):
                self.number, self.proc, self.pid = number, proc, proc.pid
                return
            # Another server may own this number: leave its socket and lock alone.
            self._stop(proc, number, remove_files=False)
        raise RuntimeError("no free X display number for Xvfb")

    @property
    def display(self):
        return f":{self.number}"

    @staticmethod
    def _serving(number, proc, timeout=10):
        """The socket appears before the server answers: xdpyinfo succeeding is the sign."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(f"/tmp/.X11-unix/X{number}") and subprocess.run(
                    ["xdpyinfo", "-display", f":{number}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                return True
            time.sleep(0.05)
        return False

    @staticmethod
    def _stop(proc, number, remove_files=True):
        if proc.poll() is None:
            end(proc, 2)
        for path in (f"/tmp/.X11-unix/X{number}", f"/tmp/.X{number}-lock"):
            try:
                if remove_files and os.path.exists(path):
                    os.remove(path)
            except OSError:
                pass

    def stop(self):
        self._stop(self.proc, self.number)
