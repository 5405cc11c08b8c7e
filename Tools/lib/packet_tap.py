"""A UDP relay on the receiving side that notes when each RTP packet arrives.

The sender sends to the tap; the tap passes every datagram on to the real
receiver and passes the receiver's replies (RTCP) back to the sender, so the
call behaves as without it. For each RTP packet it keeps the kernel's receive
time (SO_TIMESTAMPNS, CLOCK_REALTIME) and the header's timestamp, sequence
number and marker: under SRTP the RTP header is sent in the clear (RFC 3711
§3.1), so the tap needs no key."""
import select
import socket
import struct
import threading

# <asm-generic/socket.h>: Python's socket module does not name these.
SO_TIMESTAMPNS = 35
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
TIMESPEC = struct.Struct("@qq")
DATAGRAM = 65536


def _is_rtcp(datagram):
    """RFC 5761 §4: with RTP and RTCP on one port, RTCP's packet types 200-206
    are what an RTP header's marker-and-type byte can never be (72-76)."""
    return len(datagram) >= 2 and 72 <= (datagram[1] & 0x7F) <= 76


class PacketTap:
    """Listens on 127.0.0.1 (`address`), relays to `receiver` ("host:port")."""

    def __init__(self, receiver):
        host, port = receiver.rsplit(":", 1)
        self.receiver = (host, int(port))
        self.inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.inbound.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.inbound.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.inbound.bind(("127.0.0.1", 0))
        self.outbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.outbound.bind(("127.0.0.1", 0))
        self.sender = None
        self.packets = []  # (arrival seconds, RTP timestamp, sequence number, marker)
        self._lock = threading.Lock()
        self._running = True
        self._thread = threading.Thread(target=self._relay, daemon=True)
        self._thread.start()

    @property
    def address(self):
        return "127.0.0.1:%d" % self.inbound.getsockname()[1]

    def _relay(self):
        while self._running:
            ready, _, _ = select.select([self.inbound, self.outbound], [], [], 0.2)
            if self.inbound in ready:
                data, ancillary, _, source = self.inbound.recvmsg(DATAGRAM, socket.CMSG_SPACE(TIMESPEC.size))
                self.sender = source
                arrived = None
                for level, kind, value in ancillary:
                    if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS:
                        seconds, nanoseconds = TIMESPEC.unpack(value[:TIMESPEC.size])
                        arrived = seconds + nanoseconds / 1e9
                if arrived is not None and len(data) >= 12 and data[0] >> 6 == 2 and not _is_rtcp(data):
                    sequence, timestamp = struct.unpack("!HI", data[2:8])
                    with self._lock:
                        self.packets.append((arrived, timestamp, sequence, bool(data[1] & 0x80)))
                self.outbound.sendto(data, self.receiver)
            if self.outbound in ready:
                data = self.outbound.recv(DATAGRAM)
                if self.sender:
                    self.inbound.sendto(data, self.sender)

    def frames(self):
        """The packets grouped by RTP timestamp, in order of arrival:
        [{"timestamp", "first", "last", "packets", "marker"}]."""
        with self._lock:
            packets = list(self.packets)
        frames = []
        for arrived, timestamp, _, marker in packets:
            if not frames or frames[-1]["timestamp"] != timestamp:
                frames.append({"timestamp": timestamp, "first": arrived, "last": arrived, "packets": 0, "marker": False})
            frame = frames[-1]
            frame["last"] = arrived
            frame["packets"] += 1
            frame["marker"] = frame["marker"] or marker
        return frames

    def stop(self):
        self._running = False
        self._thread.join(2)
        self.inbound.close()
        self.outbound.close()


def change_latencies(changes, frames, min_packets=10):
    """For each change drawn at time t (CLOCK_REALTIME seconds), the first frame
    whose first packet arrived after t, before the next change, with at least
    `min_packets` packets (a still screen's frames are one or two: a whole new
    page is many). Returns [(first packet - t, last packet - t, packets)],
    times in seconds, for the changes that found such a frame whole (its
    marker seen)."""
    found = []
    for index, drawn in enumerate(changes):
        until = changes[index + 1] if index + 1 < len(changes) else float("inf")
        frame = next((f for f in frames if drawn < f["first"] < until and f["packets"] >= min_packets), None)
        if frame and frame["marker"]:
            found.append((frame["first"] - drawn, frame["last"] - drawn, frame["packets"]))
    return found
