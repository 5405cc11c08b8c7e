#!/usr/bin/env python3
"""A UDP relay that adds propagation delay, jitter and random loss to a path.

It exists because this kernel has no `netem` (nor any other qdisc that
delays or drops at random): `tc tbf` gives a link its rate and its queue,
and this relay, run in the receiver's network namespace, gives it the rest.

    relay.py --outer 10.200.0.2:6000 --inner 127.0.0.1:6001 --to 127.0.0.1:5004 \\
             [--delay-ms 50] [--jitter-ms 0] [--loss 0.02] [--return-delay-ms 50] \\
             [--return-jitter-ms 0] [--return-loss 0] [--seed 1] [--copy-to 127.0.0.1:5010]
    relay.py --self-test

What arrives on the outer socket (media and the sender's RTCP) leaves the
inner socket for `--to`, `--delay-ms` later; what arrives on the inner socket
(the receiver's feedback) leaves the outer socket, `--return-delay-ms` later,
for the address the last packet on the outer socket came from. A round trip
is the sum of the two delays. Each direction:

- drops a packet with probability `loss`, decided when it arrives, from a
  random generator seeded by `--seed` (a run repeats its losses exactly);
- holds every other packet for `delay` plus a uniform draw from [0, jitter],
  never releasing one before the packet ahead of it: a path that jitters but
  does not reorder, as a bottleneck's queue does not;
- keeps at most 20000 packets waiting; more are dropped and counted.

`--copy-to` sends a copy of every media packet the relay delivers to a second
address, so a decoder there sees exactly the packets the receiver saw.

On SIGTERM or SIGINT it prints one JSON line of counters and exits.
Timing: it asks for SCHED_FIFO (root) so a loaded machine does not add its
own delay; `--self-test` measures what it delivers.
"""
import argparse
import collections
import json
import os
import random
import selectors
import signal
import socket
import struct
import sys
import time

import processes

QUEUE_LIMIT = 20000
BUFFER_BYTES = 4 * 1024 * 1024


def address(text):
    host, port = text.rsplit(":", 1)
    return host, int(port)


class Direction:
    """One way through the relay: its loss, its delay, its queue and counters."""

    def __init__(self, name, delay, jitter, loss, seed):
        self.name, self.delay, self.jitter, self.loss = name, delay, jitter, loss
        self.random = random.Random(seed)
        self.queue = collections.deque()
        self.last_due = 0.0
        self.counts = {"received": 0, "lost": 0, "overflow": 0, "sent": 0}

    def arrive(self, data, now):
        self.counts["received"] += 1
        if self.loss > 0 and self.random.random() < self.loss:
            self.counts["lost"] += 1
            return
        if len(self.queue) >= QUEUE_LIMIT:
            self.counts["overflow"] += 1
            return
        due = now + self.delay + (self.random.uniform(0, self.jitter) if self.jitter > 0 else 0)
        self.last_due = max(self.last_due, due)
        self.queue.append((self.last_due, data))

    def due(self, now):
        """The packets whose time has come, in order."""
        out = []
        while self.queue and self.queue[0][0] <= now:
            out.append(self.queue.popleft()[1])
        return out

    def next_due(self):
        return self.queue[0][0] if self.queue else None


def make_socket(bound):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for option, forced in ((socket.SO_RCVBUF, 33), (socket.SO_SNDBUF, 32)):  # SO_RCVBUFFORCE, SO_SNDBUFFORCE
        try:
            s.setsockopt(socket.SOL_SOCKET, forced, BUFFER_BYTES)
        except OSError:
            s.setsockopt(socket.SOL_SOCKET, option, BUFFER_BYTES)
    s.bind(bound)
    s.setblocking(False)
    return s


def realtime():
    """SCHED_FIFO at a low real-time priority, when allowed; whether it was."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        return True
    except (AttributeError, PermissionError, OSError):
        return False


class Relay:
    def __init__(self, outer, inner, to, forward, back, copy_to=None):
        self.outer, self.inner = make_socket(outer), make_socket(inner)
        self.to, self.copy_to = to, copy_to
        self.forward, self.back = forward, back
        self.sender = None
        self.running = True
        self.send_errors = 0

    def send(self, sock, data, target):
        try:
            sock.sendto(data, target)
            return True
        except OSError:
            # A full socket buffer or an unreachable peer: the packet is lost, as on a real path.
            self.send_errors += 1
            return False

    def run(self):
        selector = selectors.DefaultSelector()
        selector.register(self.outer, selectors.EVENT_READ, self.forward)
        selector.register(self.inner, selectors.EVENT_READ, self.back)
        while self.running:
            now = time.monotonic()
            for data in self.forward.due(now):
                if self.send(self.inner, data, self.to):
                    self.forward.counts["sent"] += 1
                if self.copy_to:
                    self.send(self.inner, data, self.copy_to)
            for data in self.back.due(now):
                if self.sender and self.send(self.outer, data, self.sender):
                    self.back.counts["sent"] += 1
            dues = [d for d in (self.forward.next_due(), self.back.next_due()) if d is not None]
            timeout = max(0.0, min(dues) - time.monotonic()) if dues else 0.2
            try:
                events = selector.select(min(timeout, 0.2))
            except InterruptedError:
                continue
            for key, _ in events:
                while True:
                    try:
                        data, source = key.fileobj.recvfrom(65536)
                    except (BlockingIOError, InterruptedError):
                        break
                    except OSError:
                        break
                    if key.fileobj is self.outer:
                        self.sender = source
                    key.data.arrive(data, time.monotonic())

    def counters(self):
        return {"event": "relay", "forward": self.forward.counts, "back": self.back.counts,
                "queued": {"forward": len(self.forward.queue), "back": len(self.back.queue)},
                "sendErrors": self.send_errors}


def serve(a):
    forward = Direction("forward", a.delay_ms / 1000, a.jitter_ms / 1000, a.loss, a.seed)
    back = Direction("back", a.return_delay_ms / 1000, a.return_jitter_ms / 1000, a.return_loss, a.seed + 1)
    relay = Relay(address(a.outer), address(a.inner), address(a.to), forward, back,
                  address(a.copy_to) if a.copy_to else None)

    def stop(_number, _frame):
        relay.running = False
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    rt = realtime()
    print(json.dumps({"event": "listening", "outer": a.outer, "inner": a.inner, "realtime": rt}), flush=True)
    relay.run()
    print(json.dumps(relay.counters()), flush=True)
    return 0


# The self-test: packets stamped with their send time go through a relay on
# loopback both ways; what comes out must show the delay, jitter, loss and
# order the relay was given.

SELF_TEST = {"delay_ms": 40.0, "jitter_ms": 10.0, "loss": 0.05, "return_delay_ms": 20.0, "return_jitter_ms": 0.0,
             "return_loss": 0.02, "packets": 2000, "interval_s": 0.002}


def expected_median(delay, jitter, interval, packets):
    """The median delay of the relay's rule (a uniform draw, never before the packet ahead)
    for packets `interval` apart: a packet close behind one with a long draw waits for it."""
    draws = random.Random(0)
    last, delays = 0.0, []
    for i in range(packets):
        last = max(last, i * interval * 1000 + delay + draws.uniform(0, jitter))
        delays.append(last - i * interval * 1000)
    return percentile(delays, 0.5)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def measure_direction(send_sock, target, receive_sock, packets, interval):
    """Sends `packets` stamped packets to target; what receive_sock got: (delays in ms, sequence numbers)."""
    got = []
    next_send = time.monotonic()
    sent = 0
    deadline = None
    while True:
        now = time.monotonic()
        if sent < packets and now >= next_send:
            send_sock.sendto(struct.pack("!Id", sent, now) + bytes(1000), target)
            sent += 1
            next_send += interval
            if sent == packets:
                deadline = now + 0.5
        if deadline and now > deadline:
            break
        try:
            data = receive_sock.recv(2048)
            seq, stamp = struct.unpack("!Id", data[:12])
            got.append((seq, (time.monotonic() - stamp) * 1000))
        except BlockingIOError:
            time.sleep(0.0002)
    return [d for _, d in got], [s for s, _ in got]


def self_test(_a):
    c = SELF_TEST
    outer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    outer.bind(("127.0.0.1", 0))
    far = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    far.bind(("127.0.0.1", 0))
    ports = []
    for _ in range(2):
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.bind(("127.0.0.1", 0))
        ports.append(probe.getsockname()[1])
        probe.close()
    relay_outer, relay_inner = ("127.0.0.1", ports[0]), ("127.0.0.1", ports[1])
    argv = [sys.executable, os.path.abspath(__file__), "--outer", "%s:%d" % relay_outer, "--inner", "%s:%d" % relay_inner,
            "--to", "%s:%d" % far.getsockname(), "--delay-ms", str(c["delay_ms"]), "--jitter-ms", str(c["jitter_ms"]),
            "--loss", str(c["loss"]), "--return-delay-ms", str(c["return_delay_ms"]),
            "--return-jitter-ms", str(c["return_jitter_ms"]), "--return-loss", str(c["return_loss"]), "--seed", "7"]
    processes.install_cleanup()
    # The measuring side runs at the relay's priority too, so what is measured is the relay, not this machine's load.
    realtime()
    relay = processes.Child("relay", argv)
    started = relay.wait_for(lambda o: o.get("event") == "listening", 5)
    if not started:
        print("relay self-test: the relay did not start")
        return 1
    for s in (outer, far):
        s.setblocking(False)
    failures = []
    try:
        forward = measure_direction(outer, relay_outer, far, c["packets"], c["interval_s"])
        # The relay answers toward the last address that reached its outer side: `outer`.
        back = measure_direction(far, relay_inner, outer, c["packets"], c["interval_s"])
    finally:
        relay.stop()
    counted = relay.events("relay")
    counters = counted[-1][1] if counted else {}
    print("relay self-test (%s): %d packets each way at %d a second" % (
        "SCHED_FIFO" if started[1].get("realtime") else "normal scheduling", c["packets"], round(1 / c["interval_s"])))
    for name, (delays, seqs), delay, jitter, loss in (
            ("forward", forward, c["delay_ms"], c["jitter_ms"], c["loss"]),
            ("back", back, c["return_delay_ms"], c["return_jitter_ms"], c["return_loss"])):
        n = c["packets"]
        lost = 1 - len(delays) / n
        # Three standard deviations of a binomial draw, plus one packet.
        loss_tolerance = 3 * (loss * (1 - loss) / n) ** 0.5 + 1 / n
        in_order = all(b > a for a, b in zip(seqs, seqs[1:]))
        p50, p95, p99, low = percentile(delays, 0.5), percentile(delays, 0.95), percentile(delays, 0.99), min(delays)
        spread = percentile(delays, 0.95) - percentile(delays, 0.05)
        print("  %-7s lost %.2f %% (asked %.2f %%), delay min %.1f / median %.1f / p95 %.1f / p99 %.1f ms "
              "(asked %.0f + 0..%.0f ms, median %.1f expected), 5-95 %% spread %.1f ms, in order: %s" % (
                  name, 100 * lost, 100 * loss, low, p50, p95, p99, delay, jitter,
                  expected_median(delay, jitter, c["interval_s"], n), spread, in_order))
        if abs(lost - loss) > loss_tolerance:
            failures.append("%s: lost %.2f %%, asked %.2f %% (± %.2f)" % (name, 100 * lost, 100 * loss, 100 * loss_tolerance))
        if low < delay - 0.5:
            failures.append("%s: a packet came %.1f ms early" % (name, delay - low))
        # With 2 ms for the sockets and the scheduler.
        median = expected_median(delay, jitter, c["interval_s"], n)
        if abs(p50 - median) > 2:
            failures.append("%s: median delay %.1f ms, expected %.1f ± 2" % (name, p50, median))
        # The tail is this machine's scheduling as much as the relay: the 95th percentile is judged, the 99th shown.
        if p95 > delay + jitter + 10:
            failures.append("%s: p95 delay %.1f ms, over %.1f" % (name, p95, delay + jitter + 10))
        if jitter > 0 and spread < 0.6 * jitter:
            failures.append("%s: delays spread over %.1f ms only, jitter asked %.0f" % (name, spread, jitter))
        if not in_order:
            failures.append("%s: packets reordered" % name)
    if counters.get("forward", {}).get("received") != c["packets"] or counters.get("back", {}).get("received") != c["packets"]:
        failures.append("the relay counted %s" % (counters or "nothing"))
    for failure in failures:
        print("  FAIL " + failure)
    print("relay self-test: " + ("FAIL" if failures else "pass"))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--self-test", action="store_true", help="measure a relay on loopback and check it")
    ap.add_argument("--outer", help="HOST:PORT the sender sends to")
    ap.add_argument("--inner", help="HOST:PORT the relay sends to the receiver from, where its feedback comes back")
    ap.add_argument("--to", help="HOST:PORT of the receiver")
    ap.add_argument("--copy-to", help="HOST:PORT that gets a copy of every media packet delivered")
    ap.add_argument("--delay-ms", type=float, default=0.0)
    ap.add_argument("--jitter-ms", type=float, default=0.0)
    ap.add_argument("--loss", type=float, default=0.0, help="probability that a media packet is lost (0..1)")
    ap.add_argument("--return-delay-ms", type=float, default=0.0)
    ap.add_argument("--return-jitter-ms", type=float, default=0.0)
    ap.add_argument("--return-loss", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.self_test:
        return self_test(a)
    if not (a.outer and a.inner and a.to):
        ap.error("--outer, --inner and --to are needed (or --self-test)")
    for name in ("loss", "return_loss"):
        if not 0 <= getattr(a, name) < 1:
            ap.error("--%s must be from 0 up to 1" % name.replace("_", "-"))
    return serve(a)


if __name__ == "__main__":
    sys.exit(main())
