"""An emulated uplink between a sender's and a receiver's network namespace
(root): `tc tbf` on the sender's end of a veth pair for the rate and the
queue, rate steps by `tc qdisc change` at set times, and Tools/lib/relay.py in
the receiver's namespace for propagation delay, jitter and random loss (the
kernel has no netem). The receiver's feedback comes back through the relay,
unshaped, as on a real uplink.

    sender ns 10.200.0.1 ──veth, tbf──▶ receiver ns 10.200.0.2:RELAY_PORT ─relay─▶ 127.0.0.1:receiver
                         ◀──────────────────────────────────────────────── feedback ◀─┘
"""
import dataclasses
import json
import os
import subprocess
import sys
import time

import netns
import processes

SENDER_ADDRESS, RECEIVER_ADDRESS = "10.200.0.1", "10.200.0.2"
RELAY_PORT = 6000
# The relay's side toward the receiver, on the receiver namespace's loopback:
# where the receiver's feedback goes (rtpbin's udpsink is told this address).
RELAY_INNER = ("127.0.0.1", 6001)
BURST, LATENCY = "16kb", "200ms"
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "relay.py")


@dataclasses.dataclass
class Profile:
    """What a link does: its rate in bit/s (and the later rates, as (seconds
    after the start, bit/s)), the round trip the relay adds, split evenly
    between the two directions, jitter on the media direction and random loss
    of media packets."""
    name: str
    rate: int
    rtt_ms: float = 0.0
    jitter_ms: float = 0.0
    loss: float = 0.0
    steps: tuple = ()
    # How long a row on this link lasts, at least (the steps need time to show).
    seconds: float = 0.0

    @property
    def relayed(self):
        return self.rtt_ms > 0 or self.jitter_ms > 0 or self.loss > 0

    def rate_at(self, t):
        rate = self.rate
        for at, r in self.steps:
            if t >= at:
                rate = r
        return rate

    def bits_between(self, t0, t1):
        """What the link can carry from t0 to t1 (seconds from the start), in bits."""
        edges = sorted({t0, t1} | {at for at, _ in self.steps if t0 < at < t1})
        return sum(self.rate_at(a) * (b - a) for a, b in zip(edges, edges[1:]))

    def describe(self):
        rates = [self.rate] + [r for _, r in self.steps]
        text = " → ".join(mbit(r) for r in rates) + " Mbit/s"
        if self.steps:
            text += " (at " + ", ".join("%g s" % at for at, _ in self.steps) + ")"
        if self.rtt_ms:
            text += ", RTT %g ms" % self.rtt_ms
        if self.jitter_ms:
            text += ", jitter %g ms" % self.jitter_ms
        if self.loss:
            text += ", %g %% loss" % (100 * self.loss)
        return text


def mbit(rate):
    return "%g" % (rate / 1e6)


def tbf(rate):
    return ["tbf", "rate", "%dbit" % rate, "burst", BURST, "latency", LATENCY]


class Link(netns.NamespacePair):
    """The two namespaces and what lies between them. `start_row` puts the
    link back to its profile's first rate and starts a relay when the profile
    needs one; `tick` applies the rate steps that are due and samples the
    bottleneck's counters; `end_row` stops the relay."""

    def __init__(self, prefix="ssmb", dev_prefix="mb"):
        super().__init__(prefix, dev_prefix, SENDER_ADDRESS, RECEIVER_ADDRESS)
        self.profile = None
        self.relay = None
        self.samples = []   # (seconds since the row started, counters)
        self.started = None
        self.applied = 0

    def up(self, rate=1_500_000):
        super().up()
        self.run("tc", "qdisc", "add", "dev", self.sender_dev, "root", *tbf(rate), ns=self.sender_ns)

    def set_rate(self, rate):
        self.run("tc", "qdisc", "change", "dev", self.sender_dev, "root", *tbf(rate), ns=self.sender_ns)

    def counters(self):
        """The tbf's counters now: bytes and packets sent, packets dropped, bytes queued; None if unreadable."""
        out = subprocess.run(["ip", "netns", "exec", self.sender_ns, "tc", "-s", "-j", "qdisc", "show", "dev",
                              self.sender_dev], capture_output=True, text=True).stdout
        try:
            q = next(q for q in json.loads(out) if q.get("kind") == "tbf")
        except (ValueError, StopIteration):
            return None
        return {"bytes": q["bytes"], "packets": q["packets"], "drops": q["drops"], "backlog": q["backlog"]}

    def start_row(self, profile, work, name, deliver_to, copy_to=None, seed=1):
        """The link as `profile` says, for one row; returns the address the sender
        sends to. A relay is started when the profile needs one or when a copy
        of the media is asked for."""
        self.profile, self.applied, self.samples = profile, 0, []
        self.set_rate(profile.rate)
        if profile.relayed or copy_to:
            half = profile.rtt_ms / 2
            argv = [sys.executable, RELAY, "--outer", "%s:%d" % (RECEIVER_ADDRESS, RELAY_PORT),
                    "--inner", "%s:%d" % RELAY_INNER, "--to", deliver_to, "--delay-ms", str(half),
                    "--jitter-ms", str(profile.jitter_ms), "--loss", str(profile.loss),
                    "--return-delay-ms", str(half), "--seed", str(seed)]
            if copy_to:
                argv += ["--copy-to", copy_to]
            self.relay = processes.Child("relay", self.in_receiver(argv),
                                         stderr_path=os.path.join(work, "relay-%s.err" % name))
            if not self.relay.wait_for(lambda o: o.get("event") == "listening", 5):
                raise RuntimeError("the relay did not start (see relay-%s.err)" % name)
            target = "%s:%d" % (RECEIVER_ADDRESS, RELAY_PORT)
        else:
            self.relay = None
            target = deliver_to
        return target

    def begin(self):
        """The row's clock starts now (the sender has just been started)."""
        self.started = time.monotonic()
        self.sample()

    def sample(self):
        c = self.counters()
        if c is not None:
            self.samples.append((time.monotonic() - self.started, c))

    def tick(self):
        """Rate steps that are due, then a sample of the counters."""
        t = time.monotonic() - self.started
        steps = self.profile.steps
        while self.applied < len(steps) and t >= steps[self.applied][0]:
            self.set_rate(steps[self.applied][1])
            self.applied += 1
        self.sample()

    def run_for(self, seconds, interval=0.25):
        """Ticks every `interval` for `seconds` from `begin`."""
        end = self.started + seconds
        while True:
            now = time.monotonic()
            if now >= end:
                break
            time.sleep(min(interval, end - now))
            self.tick()

    def end_row(self):
        """Stops the relay; its counters (None without a relay)."""
        if self.relay is None:
            return None
        self.relay.stop()
        found = self.relay.events("relay")
        self.relay = None
        return found[-1][1] if found else None


def sample_at(samples, t):
    """The first sample taken at or after t (the last one if none)."""
    return next((c for at, c in samples if at >= t), samples[-1][1])


def bottleneck(samples, profile, after=3.0):
    """What the tbf did from `after` to the last sample: packets dropped (and
    their share of the packets offered to it), and the link's utilisation
    (bytes it passed against what its rate allowed, both as tc counts them:
    whole frames with their Ethernet header)."""
    if not samples or samples[-1][0] <= after:
        return None
    first, last = sample_at(samples, after), samples[-1][1]
    t0 = next(at for at, _ in samples if at >= after)
    t1 = samples[-1][0]
    dropped = last["drops"] - first["drops"]
    passed = last["packets"] - first["packets"]
    bits = (last["bytes"] - first["bytes"]) * 8
    capacity = profile.bits_between(t0, t1)
    return {"dropped": dropped, "dropShare": dropped / (dropped + passed) if dropped + passed else 0.0,
            "utilisation": bits / capacity if capacity else None, "mbit": bits / (t1 - t0) / 1e6 if t1 > t0 else None}


ADAPTED_DOWN_FOR = 2.0     # seconds without a drop, the queue short
SHORT_QUEUE = 0.1          # seconds of the new rate
FULL_WINDOW, FULL_SHARE = 1.0, 0.85


def adaptation(samples, profile, end):
    """For each rate step: ("down" or "up", seconds until adapted or None).
    Down: adapted at the first sample from which the tbf drops nothing for 2 s
    and its queue is under 100 ms of the new rate at the end of them. Up:
    adapted at the end of the first 1-s window in which the tbf passes at
    least 85 % of the new rate. Each looks only until the next step."""
    out = []
    for i, (at, rate) in enumerate(profile.steps):
        before = profile.rate if i == 0 else profile.steps[i - 1][1]
        until = profile.steps[i + 1][0] if i + 1 < len(profile.steps) else end
        found = None
        window = ADAPTED_DOWN_FOR if rate < before else FULL_WINDOW
        for t, c in samples:
            if t < at or t + window > until:
                continue
            later = next(((u, d) for u, d in samples if u >= t + window), None)
            if later is None:
                break
            if rate < before:
                if later[1]["drops"] == c["drops"] and later[1]["backlog"] * 8 < rate * SHORT_QUEUE:
                    found = t - at
                    break
            elif (later[1]["bytes"] - c["bytes"]) * 8 >= FULL_SHARE * rate * (later[0] - t):
                found = later[0] - at
                break
        out.append(("down" if rate < before else "up", found, until - at))
    return out
