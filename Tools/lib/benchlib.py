"""Helpers shared by Tools/bench, Tools/motion-bench and Tools/soak (python3
stdlib only): finding or building the binaries, SRTP key files, the synthetic
screen as raw frames, child processes whose JSON lines are collected with
arrival times, /proc figures, and cleanup on exit."""
import atexit
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)
LIB = os.path.join(TOOLS, "lib")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

_children = []


def log(message):
    print(message, file=sys.stderr, flush=True)


def bin_dir():
    """BIN_DIR (default .build/release in the repository), built with
    `swift build -c release` when a binary is missing."""
    directory = os.environ.get("BIN_DIR", os.path.join(REPO, ".build", "release"))
    if not os.path.isabs(directory):
        directory = os.path.join(REPO, directory)
    needed = ["screenshare", "screen-receiver"]
    if not all(os.access(os.path.join(directory, n), os.X_OK) for n in needed):
        log(f"binaries missing in {directory}: running swift build -c release")
        subprocess.run(["swift", "build", "-c", "release"], cwd=REPO, check=True)
        directory = os.path.join(REPO, ".build", "release")
    return directory


def key_file(directory):
    """A fresh SRTP master key + salt (30 bytes, base64, one line)."""
    path = os.path.join(directory, "srtp.key")
    text = base64.b64encode(os.urandom(30)).decode()
    with open(path, "w") as f:
        f.write(text + "\n")
    os.chmod(path, 0o600)
    return path, text


def frames_argv(bins, width, height, fps, scenario):
    """`screenshare frames`: the synthetic screen `share --source synthetic`
    captures, as raw bgr0 on stdout, unpaced (give ffmpeg `-re` to pace it)."""
    return [os.path.join(bins, "screenshare"), "frames", "--size", f"{width}x{height}",
            "--fps", str(fps), "--scenario", scenario]


def work_dir(prefix):
    return tempfile.mkdtemp(prefix=prefix)


class Child:
    """A child process; each stdout line that parses as a JSON object is kept
    as (monotonic arrival time, object), and `on_line` is called with it."""

    def __init__(self, name, argv, stdin=None, stderr_path=None, on_line=None, env=None):
        self.name = name
        self.lines = []
        self.on_line = on_line
        self.stderr_file = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(argv, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.stderr_file,
                                     start_new_session=True, env=env)
        self.pid = self.proc.pid
        self.started = time.monotonic()
        _children.append(self)
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            item = (time.monotonic(), obj)
            if self.on_line:
                try:
                    self.on_line(item)
                except Exception as error:  # a figure we could not take must not stop the reader
                    log(f"{self.name}: {error}")
            with self._cond:
                self.lines.append(item)
                self._cond.notify_all()

    def events(self, name):
        with self._cond:
            return [(t, o) for t, o in self.lines if o.get("event") == name]

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for item in self.lines:
                    if predicate(item[1]):
                        return item
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self._cond.wait(min(left, 0.2))

    def stop(self, timeout=3.0):
        """SIGTERM to this process (only), then SIGKILL if it lingers."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            except ProcessLookupError:
                pass
        self._reader.join(1.0)
        return self.proc.returncode


def spawn_plain(argv, **kwargs):
    """A child whose output is not read here (a generator, a pipe's head)."""
    proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
    _children.append(proc)
    return proc


def cleanup():
    for child in reversed(_children):
        proc = child.proc if isinstance(child, Child) else child
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                continue
    deadline = time.monotonic() + 2
    for child in reversed(_children):
        proc = child.proc if isinstance(child, Child) else child
        try:
            proc.wait(max(0.05, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()


def install_cleanup(after=None):
    """Stops every child on exit, Ctrl-C, SIGTERM or SIGHUP; then calls `after` (such as deleting namespaces)."""
    def everything():
        cleanup()
        if after:
            after()

    atexit.register(everything)

    def on_signal(number, _frame):
        everything()
        sys.exit(128 + number)

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, on_signal)


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


def fmt(value, spec="", missing="n/a"):
    if value is None:
        return missing
    return format(value, spec)


def table(headers, rows):
    """A Markdown table, columns padded so it reads in a terminal too."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


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
            proc.terminate()
            try:
                proc.wait(2)
            except subprocess.TimeoutExpired:
                # An Xvfb that inherited blocked SIGTERM only stops for SIGKILL.
                proc.kill()
                proc.wait()
        for path in (f"/tmp/.X11-unix/X{number}", f"/tmp/.X{number}-lock"):
            try:
                if remove_files and os.path.exists(path):
                    os.remove(path)
            except OSError:
                pass

    def stop(self):
        self._stop(self.proc, self.number)
