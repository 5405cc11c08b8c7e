"""Network namespaces (root): a command in a fresh one of its own, or two
named ones joined by a veth pair, so traffic never leaves them."""
import os
import subprocess


def isolated(argv):
    """argv in a new network namespace holding only a loopback (down until `loopback_up`)."""
    return ["unshare", "-n"] + argv


def loopback_up():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)


def first_failure(commands):
    """Runs each command until one fails; that one and its stderr, or None."""
    for argv in commands:
        result = subprocess.run(argv, capture_output=True, text=True)
        if result.returncode != 0:
            return "%s: %s" % (" ".join(argv), result.stderr.strip())
    return None


class NamespacePair:
    """Two namespaces of this run's own, a sender's and a receiver's, joined
    by a veth pair whose ends are `sender_address` and `receiver_address`
    (/30). Deleting the namespaces deletes the pair."""

    def __init__(self, prefix, dev_prefix, sender_address, receiver_address):
        tag = f"{os.getpid() % 100000}"
        self.sender_ns, self.receiver_ns = f"{prefix}-s-{tag}", f"{prefix}-r-{tag}"
        self.sender_dev, self.receiver_dev = f"{dev_prefix}s{tag}", f"{dev_prefix}r{tag}"
        self.sender_address, self.receiver_address = sender_address, receiver_address
        self.made = []

    def run(self, *args, ns=None):
        argv = (["ip", "netns", "exec", ns] if ns else []) + list(args)
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    def up(self):
        for ns in (self.sender_ns, self.receiver_ns):
            self.run("ip", "netns", "add", ns)
            self.made.append(ns)
        self.run("ip", "link", "add", self.sender_dev, "netns", self.sender_ns,
                 "type", "veth", "peer", "name", self.receiver_dev, "netns", self.receiver_ns)
        for ns, dev, address in ((self.sender_ns, self.sender_dev, self.sender_address), (self.receiver_ns, self.receiver_dev, self.receiver_address)):
            self.run("ip", "link", "set", "lo", "up", ns=ns)
            self.run("ip", "addr", "add", f"{address}/30", "dev", dev, ns=ns)
            self.run("ip", "link", "set", dev, "up", ns=ns)

    def down(self):
        while self.made:
            subprocess.run(["ip", "netns", "del", self.made.pop()], stderr=subprocess.DEVNULL)

    def in_sender(self, argv):
        return ["ip", "netns", "exec", self.sender_ns] + argv

    def in_receiver(self, argv):
        return ["ip", "netns", "exec", self.receiver_ns] + argv
