"""Child processes whose output lines are kept with the time each arrived,
and stopping all of them on exit."""
import atexit
import json
import os
import signal
import subprocess
import sys
import threading
import time

from logs import log

_children = []


class Child:
    """A child process in a session of its own. Every stdout line is kept as
    (monotonic arrival time, text); a line that parses as a JSON object is
    also kept as (time, object) and handed to `on_json`.

    stderr goes to `stderr_path`, or with `log_path` joins stdout in that
    file, each line with its time since the start; else it is dropped.
    `stop_signal` is what `stop` sends first; with `kill_group` it also kills
    whatever is left in the process's group (Chromium's helpers)."""

    def __init__(self, name, argv, stdin=None, stderr_path=None, log_path=None, on_json=None, env=None,
                 stop_signal=signal.SIGTERM, stop_timeout=3.0, kill_group=False):
        self.name = name
        self.on_json = on_json
        self.stop_signal, self.stop_timeout, self.kill_group = stop_signal, stop_timeout, kill_group
        self._text, self._objects = [], []
        self._cond = threading.Condition()
        self.log = open(log_path, "w") if log_path else None
        if self.log:
            self.log.write("$ " + " ".join(argv) + "\n")
            self.log.flush()
            stderr = subprocess.STDOUT
        else:
            stderr = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(argv, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1, errors="replace",
                                     start_new_session=True, env=env)
        self.pid = self.proc.pid
        self.started = time.monotonic()
        _children.append(self)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            now = time.monotonic()
            obj = None
            if line.startswith("{"):
                try:
                    obj = json.loads(line)
                except ValueError:
                    pass
            if self.log:
                self.log.write("%8.3f %s\n" % (now - self.started, line))
                self.log.flush()
            if isinstance(obj, dict) and self.on_json:
                try:
                    self.on_json((now, obj))
                except Exception as error:  # a figure we could not take must not stop the reader
                    log(f"{self.name}: {error}")
            with self._cond:
                self._text.append((now, line))
                if isinstance(obj, dict):
                    self._objects.append((now, obj))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def output(self):
        """Every line so far: [(time, text)]."""
        with self._cond:
            return list(self._text)

    def objects(self):
        """Every JSON object line so far: [(time, object)]."""
        with self._cond:
            return list(self._objects)

    def events(self, name):
        with self._cond:
            return [(t, o) for t, o in self._objects if o.get("event") == name]

    def _wait(self, items, predicate, timeout):
        """The first item satisfying predicate, waiting up to timeout seconds or until the output ends."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for item in items[seen:]:
                    if predicate(item[1]):
                        return item
                seen = len(items)
                left = deadline - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    return None
                self._cond.wait(min(left, 0.2))

    def wait_for(self, predicate, timeout):
        """The first (time, object) whose JSON object satisfies predicate."""
        return self._wait(self._objects, predicate, timeout)

    def wait_for_line(self, predicate, timeout):
        """The first (time, text) whose line satisfies predicate."""
        return self._wait(self._text, predicate, timeout)

    def send(self, line):
        """A line on the child's stdin (opened with stdin=subprocess.PIPE); a child gone already is no error."""
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass

    def send_json(self, obj):
        self.send(json.dumps(obj))

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=None):
        """stop_signal, then SIGKILL if it lingers past timeout; the exit status."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(self.stop_signal)
                self.proc.wait(self.stop_timeout if timeout is None else timeout)
            except subprocess.TimeoutExpired:
                self._kill()
                self.proc.wait(5)
            except ProcessLookupError:
                pass
        if self.kill_group:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._reader.join(2)
        return self.proc.returncode

    def _kill(self):
        try:
            if self.kill_group:
                os.killpg(self.pid, signal.SIGKILL)
            else:
                self.proc.kill()
        except ProcessLookupError:
            pass


def end(proc, timeout):
    """SIGTERM, then SIGKILL if it lingers past timeout (a process that inherited SIGTERM blocked)."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


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
