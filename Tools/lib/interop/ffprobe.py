"""ffprobe and ffmpeg opening the SDP file screenshare writes: codec, size
and the SPS level against the true level of H.264's Table A-1; and a player
that starts after the share's first keyframe (or, through `serve`, after
its own stream's first), with no one to ask for another, showing a picture
soon all the same."""
import json
import os
import socket
import subprocess
import time

from interop.check import SSRC
from interop.sender import stop_sender


# H.264 Table A-1: level, MaxFS (macroblocks), MaxMBPS.
LEVELS = [(10, 99, 1485), (11, 396, 3000), (12, 396, 6000), (13, 396, 11880), (20, 396, 11880), (21, 792, 19800),
          (22, 1620, 20250), (30, 1620, 40500), (31, 3600, 108000), (32, 5120, 216000), (40, 8192, 245760),
          (41, 8192, 245760), (42, 8704, 522240), (50, 22080, 589824), (51, 36864, 983040)]


def true_level(width, height, fps):
    mbs = ((width + 15) // 16) * ((height + 15) // 16)
    for level, max_fs, max_mbps in LEVELS:
        if mbs <= max_fs and mbs * fps <= max_mbps:
            return level
    return None


def run_ffprobe(check, policy, extra=()):
    check.row.update(peer="ffprobe (SDP)", policy=policy)
    port = 5004
    sdp = os.path.join(check.work, "screenshare.sdp")
    sender = check.sender(["--size", "1920x1080", "--scenario", "motion", "--policy", policy,
                           "--to", "127.0.0.1:%d" % port, "--ssrc", str(SSRC), "--sdp", sdp] + list(extra))
    deadline = time.monotonic() + 10
    while not os.path.exists(sdp) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not check.expect(os.path.exists(sdp), "screenshare wrote no SDP"):
        return
    time.sleep(0.2)
    probe = check.start("ffprobe", ["ffprobe", "-hide_banner", "-loglevel", "warning", "-protocol_whitelist",
                                    "file,udp,rtp", "-read_intervals", "%+4", "-count_frames", "-of", "json",
                                    "-show_entries", "stream=codec_name,profile,level,width,height,nb_read_frames",
                                    sdp])
    opened = time.monotonic()
    # A receiver that joins asks for a keyframe, as a call client does for a new participant.
    for _ in range(3):
        time.sleep(0.5)
        sender.send("keyframe")
    try:
        probe.proc.wait(20)
    except subprocess.TimeoutExpired:
        pass
    probe.stop()
    figures, status = stop_sender(check, sender)
    text = "\n".join(line for _, line in probe.output())
    try:
        stream = json.loads(text[text.index("{"):])["streams"][0]
    except (ValueError, KeyError, IndexError):
        check.failures.append("ffprobe printed no stream: " + text[-300:])
        return
    width, height, level = stream.get("width", 0), stream.get("height", 0), stream.get("level", 0)
    frames = int(stream.get("nb_read_frames", 0) or 0)
    fps = figures.get("encoder_fps") or 30
    check.row.update(decoded=frames, size="%dx%d" % (width, height), sent=status.get("framesSent"))
    check.note("level %s (%s), encoder fps %d" % (level, stream.get("profile"), fps))
    check.expect(stream.get("codec_name") == "h264", "codec %r" % stream.get("codec_name"))
    check.expect(frames >= 60, "ffprobe decoded only %d frames in its 4 s" % frames)
    return stream, width, height, level, fps, figures


def check_ffprobe_balanced(check):
    """ffprobe opens the SDP screenshare wrote: 1920×1080, Balanced, SPS level is the true level (4.0 at 30 fps)."""
    out = run_ffprobe(check, "balanced")
    if not out:
        return
    stream, width, height, level, fps, figures = out
    check.expect((width, height) == (1920, 1080), "size %dx%d, not 1920x1080" % (width, height))
    expected = true_level(width, height, fps)
    check.expect(level == expected, "SPS level %s, but %dx%d at %d fps is level %s" % (level, width, height, fps, expected))


def check_ffprobe_motion(check):
    """ffprobe opens the SDP: Motion holds ≤ 1280 on the long side within level 3.1 (ffprobe level 31)."""
    out = run_ffprobe(check, "motion")
    if not out:
        return
    stream, width, height, level, fps, figures = out
    check.expect(0 < max(width, height) <= 1280, "size %dx%d is over 1280 on the long side" % (width, height))
    check.expect(((width + 15) // 16) * ((height + 15) // 16) <= 3600, "%dx%d is over 3600 macroblocks" % (width, height))
    check.expect(level == 31, "SPS level %s, not 31" % level)


def check_ffmpeg_join(check):
    """ffmpeg opens the SDP 1.5 s into a share, long after its first keyframe, and nothing asks for another (it sends no feedback): its first picture within 4 s (the last resort alone: 8.5 s), ≥ 30 in 6 s."""
    check.row.update(peer="ffmpeg (SDP)", policy="balanced")
    sdp = os.path.join(check.work, "screenshare.sdp")
    sender = check.sender(["--size", "1280x720", "--scenario", "motion", "--to", "127.0.0.1:5004", "--ssrc", str(SSRC),
                           "--sdp", sdp])
    deadline = time.monotonic() + 10
    while not os.path.exists(sdp) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not check.expect(os.path.exists(sdp), "screenshare wrote no SDP"):
        return
    time.sleep(max(0.0, sender.started + 1.5 - time.monotonic()))
    player = start_player(check, sdp)
    time.sleep(6)
    player.stop()
    figures, status = stop_sender(check, sender)
    pictures, when = judge_player(check, player)
    check.row.update(decoded=len(pictures), sent=status.get("framesSent"))
    check.note("first picture %s after ffmpeg started; keyframes made %s, asked %s, feedback %s" % (
        when, figures.get("made"), figures.get("asked"), status.get("feedback")))


def start_player(check, sdp):
    return check.start("ffmpeg", ["ffmpeg", "-hide_banner", "-nostats", "-loglevel", "info", "-protocol_whitelist",
                                  "file,udp,rtp", "-i", sdp, "-vf", "showinfo", "-fps_mode", "passthrough", "-f", "null", "-"])


def judge_player(check, player):
    """A player started late shows its first picture within 4 s of starting, and ≥ 30 in its 6 s."""
    pictures = [t - player.started for t, line in player.output() if "Parsed_showinfo" in line and " n:" in line]
    when = "%.1f s" % pictures[0] if pictures else "never"
    check.expect(pictures and pictures[0] <= 4.0,
                 "ffmpeg's first picture came %s after it started" % when if pictures else "ffmpeg showed no picture")
    check.expect(len(pictures) >= 30, "ffmpeg decoded %d pictures in 6 s" % len(pictures))
    return pictures, when


H264 = [{"name": "H264", "payloadType": 96, "profileLevelId": "42e01f", "packetizationMode": 1}]


def player_sdp(check, port):
    """What a call client gives the player it starts: the stream `serve` sends it, muxed RTCP."""
    return "\n".join([
        "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=player", "c=IN IP4 127.0.0.1", "t=0 0",
        "m=video %d RTP/SAVP 96" % port, "a=rtpmap:96 H264/90000",
        "a=fmtp:96 packetization-mode=1;profile-level-id=42e01f",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:" + check.key_b64, "a=rtcp-mux", "a=ssrc:%d cname:player" % SSRC,
        "a=recvonly", ""])


def check_ffmpeg_join_serve(check):
    """Through `serve`, a receiver that sends nothing has had its early keyframes (16 s); then the call client adds ffmpeg on an SDP and starts it 1.5 s later: its first picture within 4 s (on the 300-frame rule alone: 8.5 s), ≥ 30 in 6 s."""
    check.row.update(peer="ffmpeg (SDP) via serve", policy="balanced")
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))
    serve = check.serve({"cmd": "addReceiver", "receiver": "first", "name": "First",
                         "destination": "127.0.0.1:%d" % sink.getsockname()[1], "ssrc": SSRC + 1,
                         "srtp": {"key": check.key_b64}, "codecs": H264})
    time.sleep(16)
    port = 5004
    sdp = os.path.join(check.work, "player.sdp")
    with open(os.open(sdp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
        f.write(player_sdp(check, port))
    serve.send(json.dumps({"cmd": "addReceiver", "receiver": "player", "name": "Player", "destination": "127.0.0.1:%d" % port,
                           "ssrc": SSRC, "srtp": {"key": check.key_b64}, "codecs": H264}))
    time.sleep(1.5)
    player = start_player(check, sdp)
    time.sleep(6)
    player.stop()
    statuses = [o for _, o in serve.events("status") if o.get("receiver") == "player"]
    serve.send(json.dumps({"cmd": "stop"}))
    serve.stop(10)
    sink.close()
    pictures, when = judge_player(check, player)
    last = statuses[-1] if statuses else {}
    check.row.update(decoded=len(pictures), sent=last.get("framesSent"))
    check.note("first picture %s after ffmpeg started; keyframes made %s" % (when, last.get("keyframesMade")))


CHECKS = [
    ("ffprobe-balanced", check_ffprobe_balanced, "ffprobe"),
    ("ffprobe-motion", check_ffprobe_motion, "ffprobe"),
    ("ffmpeg-join", check_ffmpeg_join, "ffmpeg"),
    ("ffmpeg-join-serve", check_ffmpeg_join_serve, "ffmpeg"),
]
