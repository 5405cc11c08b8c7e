"""SRTP key files, as every program of the project reads them."""
import base64
import os


def key_file(directory, name="srtp.key"):
    """A fresh SRTP master key + salt (30 bytes, base64, one line, mode 0600): (path, base64 text)."""
    path = os.path.join(directory, name)
    text = base64.b64encode(os.urandom(30)).decode()
    # 0600 from its creation: the programs refuse a key file others may read.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")
    return path, text


def key_hex(text):
    """The key as GStreamer's srtp-key caps and srtpenc take it."""
    return base64.b64decode(text).hex()
