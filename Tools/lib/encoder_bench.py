"""`Tools/bench --encoders`: x264 alone, on the same frames, with ffmpeg's
superfast settings and with the settings screenshare adds to them.

The synthetic screen (`screenshare frames --scenario motion`) is converted to
I420 once; then ffmpeg's libx264 (the library screenshare links) encodes it
as fast as it can, at 4 Mbit/s, zerolatency, Constrained Baseline, two sliced
threads (ffmpeg's x11grab row of `Tools/bench --x11` runs so), once with the
preset alone and once with screenshare's additions (one thread at 1080p30),
each several times in turn. x264 measures the SSIM of what it encoded against
its input; the CPU is the encoding process's, from its rusage. So the figures
compare encoder settings without the rest of either program, and a busy
machine slows both alike rather than starving one of them."""
import os
import re
import resource
import subprocess

from logs import log

WIDTH, HEIGHT, FPS = 1920, 1080, 30
MACROBLOCKS = ((WIDTH + 15) // 16) * ((HEIGHT + 15) // 16)
# What H264Encoder adds to the preset for a screen: whole-pixel motion search
# (EncoderSettings.screenContent), H264Encoder.slicesPerFrame slices, and one
# thread at 1080p30 (EncoderSettings.threads).
SCREENSHARE_SETTINGS = f"subme=0:slice-max-mbs={(MACROBLOCKS + 3) // 4}:threads=1"


def frames_file(bins, work, count):
    """The synthetic `motion` screen as raw I420, `count` frames."""
    path = os.path.join(work, "motion.yuv")
    generator = subprocess.Popen([os.path.join(bins, "screenshare"), "frames", "--size", f"{WIDTH}x{HEIGHT}",
                                  "--fps", str(FPS), "--scenario", "motion", "--count", str(count)],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr0",
                    "-s", f"{WIDTH}x{HEIGHT}", "-r", str(FPS), "-i", "-", "-pix_fmt", "yuv420p", "-f", "rawvideo",
                    "-y", path], stdin=generator.stdout, check=True)
    generator.stdout.close()
    generator.wait()
    return path


def encode(path, extra):
    """One pass: (CPU seconds, SSIM, PSNR dB, kbit/s) as x264 reports them."""
    params = "ssim=1:psnr=1" + (":" + extra if extra else "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([
        "ffmpeg", "-hide_banner", "-nostats", "-loglevel", "info",
        "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{WIDTH}x{HEIGHT}", "-r", str(FPS), "-i", path,
        "-c:v", "libx264", "-preset", "superfast", "-tune", "zerolatency", "-profile:v", "baseline", "-threads", "2",
        "-g", "300", "-sc_threshold", "0", "-b:v", "4M", "-maxrate", "4M", "-bufsize", "1M",
        "-x264-params", params, "-f", "null", "-"], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    def figure(pattern):
        # The summary comes last, after one line per frame type.
        found = re.findall(pattern, done.stderr)
        return float(found[-1]) if found else None

    return cpu, figure(r"SSIM Mean Y:([0-9.]+)"), figure(r"PSNR Mean Y:([0-9.]+)"), figure(r"kb/s:([0-9.]+)")


def run(bins, work, count, runs):
    path = frames_file(bins, work, count)
    settings = [("ffmpeg superfast", ""), ("screenshare's settings", SCREENSHARE_SETTINGS)]
    results = {name: [] for name, _ in settings}
    try:
        for run_number in range(runs):
            for name, extra in settings:
                log(f"bench --encoders: {name}, pass {run_number + 1} of {runs}")
                results[name].append(encode(path, extra))
    finally:
        os.remove(path)
    rows = []
    for name, extra in settings:
        passes = results[name]
        cpus = sorted(p[0] for p in passes)

        def mean(index):
            values = [p[index] for p in passes if p[index] is not None]
            return sum(values) / len(values) if values else None

        rows.append({"name": name, "settings": extra or "-", "cpu": cpus[len(cpus) // 2], "frames": count,
                     "ssim": mean(1), "ssim_spread": (max(p[1] for p in passes) - min(p[1] for p in passes))
                     if all(p[1] is not None for p in passes) else None,
                     "psnr": mean(2), "kbps": mean(3)})
    return rows
