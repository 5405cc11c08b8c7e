"""What one check needs: a folder for its logs, the binaries, an SRTP key,
its processes and its result row."""
import functools
import json
import os
import signal
import subprocess

import keys
from processes import Child

SSRC = 305419896


def variant(function, summary, **arguments):
    """`function` with some arguments fixed, a check of its own; `summary` is what --list says of it."""
    check = functools.partial(function, **arguments)
    check.__doc__ = summary
    return check


class Check:
    def __init__(self, name, bin_dir, work):
        self.name = name
        self.bin = bin_dir
        self.work = work
        self.procs = []
        self.failures = []
        self.row = {"check": name, "peer": "", "codec": "H.264", "policy": "balanced", "sent": None, "decoded": None,
                    "size": "", "first": None, "recovery": None, "notes": ""}
        self.key_path, self.key_b64 = keys.key_file(work)
        self.key_hex = keys.key_hex(self.key_b64)

    def start(self, name, argv, env=None):
        """A process of the check, its output (stderr too) in NAME.log; stopped
        with SIGINT, as a user would, its whole group killed after."""
        p = Child(name, argv, stdin=subprocess.PIPE, log_path=os.path.join(self.work, name + ".log"), env=env,
                  stop_signal=signal.SIGINT, stop_timeout=5, kill_group=True)
        self.procs.append(p)
        return p

    def expect(self, condition, message):
        if not condition:
            self.failures.append(message)
        return condition

    def note(self, text):
        self.row["notes"] = (self.row["notes"] + "; " if self.row["notes"] else "") + text

    def serve(self, *commands):
        """`screenshare serve` on stdin, sharing the synthetic 1280x720 motion screen, then `commands`."""
        serve = self.start("serve", [os.path.join(self.bin, "screenshare"), "serve", "--control", "stdio"])
        for command in [{"cmd": "hello", "protocol": 1},
                        {"cmd": "start", "source": "synthetic", "policy": "balanced", "size": "1280x720", "fps": 30,
                         "scenario": "motion"}] + list(commands):
            serve.send(json.dumps(command))
        return serve

    def sender(self, args, name="screenshare", srtp=True):
        protection = ["--srtp-key-file", self.key_path] if srtp else ["--insecure-rtp"]
        return self.start(name, [os.path.join(self.bin, "screenshare"), "share", "--source", "synthetic"]
                          + protection + ["--json"] + args)

    def finish(self):
        for p in reversed(self.procs):
            p.stop()
        # The key never appears in the sender's output (the SDP file holds it, by design).
        sender_text = "\n".join(line for p in self.procs if p.name.startswith("screenshare") for _, line in p.output())
        self.expect(self.key_b64 not in sender_text, "the SRTP key appeared in screenshare's output")
