"""GStreamer pipelines that decode an SRTP H.264 stream and say what a viewer
got: the time of every decoded picture (an `identity` right after the
decoder prints a line for each), the frame stamp of each (a small crop of
the stamp rows, written to a file), the decoded size, and a few pictures a
second scaled to the source's size for scoring (Tools/lib/picture-score.c).

Neither shows a broken picture, as a WebRTC receiver would not: the jitter
buffer tells the depayloader of every packet it gives up (do-lost), which
then drops everything until the next keyframe (wait-for-keyframe), and the
decoder outputs no picture it knows to be corrupt (output-corrupt=false).

Two kinds:
- `rtpbin_argv`: a receiver of its own, GStreamer's rtpbin in AVPF mode
  with its feedback (RR, generic NACK, PLI, and transport-wide congestion
  control feedback when its caps name that header extension) sent back
  through srtpenc;
- `tap_argv`: a decoder that sends nothing, fed a copy of the packets
  another receiver got (Tools/lib/relay.py --copy-to).
"""
import dataclasses
import os
import re

TWCC_URI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
TWCC_ID = 5
# The stamp rows: 32 blocks of 16 px at the source's width, read from a
# picture scaled to STAMP_SCALE of the source: 128×4 pixels of luma.
STAMP_SCALE = 4
STAMP_BLOCK, STAMP_BITS = 16, 32
SOCKET_BUFFER = 4 * 1024 * 1024


def srtp_caps(key_hex, ssrc, extra=""):
    return ("application/x-srtp, media=(string)video, clock-rate=(int)90000, encoding-name=(string)H264, "
            "payload=(int)96, ssrc=(uint)%d, srtp-key=(buffer)%s, srtp-cipher=(string)aes-128-icm, "
            "srtp-auth=(string)hmac-sha1-80, srtcp-cipher=(string)aes-128-icm, srtcp-auth=(string)hmac-sha1-80%s"
            % (ssrc, key_hex, extra))


@dataclasses.dataclass
class Viewer:
    """Where a pipeline's records go, and the source's size they are read against."""
    work: str
    name: str
    width: int
    height: int
    samples_per_second: int = 0   # pictures kept for scoring; 0 keeps none

    @property
    def stamps_path(self):
        return os.path.join(self.work, self.name + ".stamps")

    @property
    def samples_path(self):
        return os.path.join(self.work, self.name + ".samples")

    @property
    def stamp_size(self):
        return STAMP_BLOCK * STAMP_BITS // STAMP_SCALE, STAMP_BLOCK // STAMP_SCALE

    def branches(self):
        """The decoder and what follows it: gst-launch words."""
        small_w, small_h = self.width // STAMP_SCALE, self.height // STAMP_SCALE
        crop_w, crop_h = self.stamp_size
        words = ["h264parse", "!", "avdec_h264", "name=dec", "output-corrupt=false", "automatic-request-sync-points=true", "!",
                 "identity", "name=frames", "silent=false", "!", "tee", "name=t",
                 "t.", "!", "queue", "!", "videoconvert", "!", "videoscale", "!",
                 "video/x-raw,format=I420,width=%d,height=%d" % (small_w, small_h), "!",
                 "videocrop", "right=%d" % (small_w - crop_w), "bottom=%d" % (small_h - crop_h), "!",
                 "video/x-raw,format=I420,width=%d,height=%d" % (crop_w, crop_h), "!",
                 "filesink", "location=" + self.stamps_path, "buffer-mode=unbuffered", "sync=false", "async=false"]
        if self.samples_per_second:
            words += ["t.", "!", "queue", "leaky=downstream", "max-size-buffers=2", "max-size-bytes=0", "max-size-time=0",
                      "!", "videorate", "drop-only=true", "max-rate=%d" % self.samples_per_second, "!",
                      "videoconvert", "!", "videoscale", "method=bilinear", "!",
                      "video/x-raw,format=I420,width=%d,height=%d" % (self.width, self.height), "!",
                      "filesink", "location=" + self.samples_path, "buffer-mode=unbuffered", "sync=false", "async=false"]
        return words

    def sample_bytes(self):
        """One I420 picture at the source's size (its luma first)."""
        return self.width * self.height * 3 // 2

    def stamps(self):
        """The frame number of each decoded picture in order, None where the stamp did not read."""
        crop_w, crop_h = self.stamp_size
        record = crop_w * crop_h + 2 * ((crop_w + 1) // 2) * ((crop_h + 1) // 2)
        try:
            with open(self.stamps_path, "rb") as f:
                data = f.read()
        except OSError:
            return []
        return [read_stamp(data[at:at + crop_w * crop_h], crop_w, STAMP_SCALE)
                for at in range(0, len(data) - record + 1, record)]

    def sample_stamps(self):
        """The frame number of each picture kept for scoring, None where the stamp did not read."""
        record = self.sample_bytes()
        out = []
        try:
            with open(self.samples_path, "rb") as f:
                while True:
                    rows = f.read(STAMP_BLOCK * self.width)
                    if len(rows) < STAMP_BLOCK * self.width:
                        break
                    out.append(read_stamp(rows, self.width, 1))
                    f.seek(record - len(rows), os.SEEK_CUR)
        except OSError:
            pass
        return out


def read_stamp(luma, stride, scale):
    """The frame number in a FrameStamp (32 blocks of 16×16, 24 bits of number
    and 8 of check) in luma rows of a picture at 1/scale of the source; None
    when the check does not match."""
    word = 0
    for bit in range(STAMP_BITS):
        x = (bit * STAMP_BLOCK + STAMP_BLOCK // 2) // scale
        y = (STAMP_BLOCK // 2) // scale
        word = word << 1 | (1 if luma[y * stride + x] > 128 else 0)
    number = word >> 8
    check = (number ^ (number >> 8) ^ (number >> 16) ^ 0xA5) & 0xFF
    return number if check == word & 0xFF else None


def rtpbin_argv(key_hex, ssrc, listen, feedback, viewer, twcc=False, latency=200):
    """rtpbin (AVPF) listening on `listen` (host, port), sending RR, NACK and
    PLI (and transport-cc feedback with `twcc`) as SRTCP to `feedback` (host,
    port). Its jitter buffer is rtpbin's own, at its default latency: it waits
    that long before its first packet, and with do-retransmission it NACKs a
    packet when it is due from the spacing of those before it and gives it up
    a few tens of milliseconds later, so a packet that a bottleneck's queue
    only delays can be dropped on arrival as too late."""
    extra = ", rtcp-fb-nack-pli=(boolean)true, rtcp-fb-nack=(boolean)true"
    if twcc:
        extra += ", extmap-%d=(string)%s" % (TWCC_ID, TWCC_URI)
    return ["gst-launch-1.0", "-v",
            "rtpbin", "name=rb", "rtp-profile=avpf", "latency=%d" % latency, "do-retransmission=true", "do-lost=true",
            "srtpenc", "name=se", "key=" + key_hex,
            "rtp-cipher=aes-128-icm", "rtp-auth=hmac-sha1-80", "rtcp-cipher=aes-128-icm", "rtcp-auth=hmac-sha1-80",
            "udpsrc", "address=%s" % listen[0], "port=%d" % listen[1], "buffer-size=%d" % SOCKET_BUFFER,
            "caps=" + srtp_caps(key_hex, ssrc, extra), "!",
            "srtpdec", "name=sd", "sd.rtp_src", "!", "rb.recv_rtp_sink_0", "sd.rtcp_src", "!", "rb.recv_rtcp_sink_0",
            "rb.", "!", "rtph264depay", "request-keyframe=true", "wait-for-keyframe=true", "!"] + viewer.branches() + [
            "rb.send_rtcp_src_0", "!", "se.rtcp_sink_0",
            "se.rtcp_src_0", "!", "udpsink", "host=%s" % feedback[0], "port=%d" % feedback[1], "sync=false", "async=false"]


def tap_argv(key_hex, ssrc, port, viewer, latency=1000):
    """A decoder on 127.0.0.1:port that answers nothing. Its jitter buffer
    starts on the first packet, passes packets on as they come in order, and
    waits up to `latency` ms for a missing one: long enough for any
    retransmission the receiver it copies asked for (which comes through the
    same bottleneck queue), so that it repairs at least what that receiver
    repairs."""
    return ["gst-launch-1.0", "-v",
            "udpsrc", "address=127.0.0.1", "port=%d" % port, "buffer-size=%d" % SOCKET_BUFFER,
            "caps=" + srtp_caps(key_hex, ssrc), "!",
            "srtpdec", "name=sd", "sd.rtcp_src", "!", "fakesink", "sync=false", "async=false",
            "sd.rtp_src", "!", "rtpjitterbuffer", "latency=%d" % latency, "faststart-min-packets=1", "do-lost=true", "!",
            "rtph264depay", "wait-for-keyframe=true", "!"] + viewer.branches()


CAPS_SIZE = re.compile(r"width=\(int\)(\d+), height=\(int\)(\d+)")


def decoded(gst):
    """From a pipeline's output: [(time, "WxH")] of each decoded picture, and the sizes in turn."""
    times, sizes = [], []
    size = ""
    for t, line in gst.output():
        if "dec.GstPad:src: caps" in line:
            m = CAPS_SIZE.search(line)
            if m:
                size = "%sx%s" % m.groups()
                if not sizes or sizes[-1] != size:
                    sizes.append(size)
        elif "frames: last-message = chain" in line:
            times.append((t, size))
    return times, sizes
