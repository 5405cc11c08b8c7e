"""A Janus of the check's own: the streaming plugin fed by screenshare over
SRTP, the HTTP transport for the viewer page, ICE on a veth of its own."""
import os
import shutil
import time

import netns

JANUS_LIBS = "/usr/lib/x86_64-linux-gnu/janus"

JANUS_MAIN = """general: {
  configs_folder = "%(dir)s"
  plugins_folder = "%(dir)s/plugins"
  transports_folder = "%(dir)s/transports"
  events_folder = "%(dir)s/none"
  loggers_folder = "%(dir)s/none"
  log_to_stdout = true
  debug_level = 4
  debug_timestamps = true
  session_timeout = 60
}
certificates: { }
media: {
  rtp_port_range = "20000-20999"
}
nat: {
  ice_enforce_list = "%(veth)s"
  ignore_mdns = true
  ice_lite = false
}
plugins: { }
transports: { }
events: { broadcast = false }
loggers: { }
"""

JANUS_HTTP = """general: {
  json = "plain"
  base_path = "/janus"
  http = true
  port = 8088
  ip = "127.0.0.1"
  https = false
}
admin: { admin_http = false admin_https = false }
cors: { }
"""

JANUS_STREAMING = """general: { }
screen: {
  type = "rtp"
  id = 1
  description = "screenshare"
  srtpsuite = 80
  srtpcrypto = "%(key)s"
  media = (
    {
      type = "video"
      mid = "v"
      label = "screen"
      port = %(port)d
      rtcpport = %(rtcpport)d
      pt = 96
      codec = "h264"
      fmtp = "profile-level-id=42e01f;packetization-mode=1"
    }
  )
}
"""


def setup_veth(check):
    """The interface Janus gathers its ICE candidate on (ice_enforce_list), 127.0.0.2 in the check's namespace."""
    veth = "ivj0"
    failure = netns.first_failure([["ip", "link", "add", veth, "type", "veth", "peer", "name", "ivj1"],
                                   ["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % veth],
                                   ["sysctl", "-qw", "net.ipv6.conf.ivj1.disable_ipv6=1"],
                                   ["ip", "addr", "add", "127.0.0.2/32", "dev", veth],
                                   ["ip", "link", "set", veth, "up"], ["ip", "link", "set", "ivj1", "up"]])
    if failure:
        check.failures.append(failure)
        return None
    return veth


def start_janus(check, port, rtcpport):
    veth = setup_veth(check)
    if veth is None:
        return None
    d = os.path.join(check.work, "janus")
    for sub in ("plugins", "transports", "none"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    shutil.copy(os.path.join(JANUS_LIBS, "plugins", "libjanus_streaming.so"), os.path.join(d, "plugins"))
    shutil.copy(os.path.join(JANUS_LIBS, "transports", "libjanus_http.so"), os.path.join(d, "transports"))
    with open(os.path.join(d, "janus.jcfg"), "w") as f:
        f.write(JANUS_MAIN % {"dir": d, "veth": veth})
    with open(os.path.join(d, "janus.transport.http.jcfg"), "w") as f:
        f.write(JANUS_HTTP)
    with open(os.path.join(d, "janus.plugin.streaming.jcfg"), "w") as f:
        f.write(JANUS_STREAMING % {"key": check.key_b64, "port": port, "rtcpport": rtcpport})
    os.chmod(os.path.join(d, "janus.plugin.streaming.jcfg"), 0o600)
    janus = check.start("janus", ["janus", "-C", os.path.join(d, "janus.jcfg"), "-F", d, "-o"])
    ready = janus.wait_for_line(lambda l: "HTTP webserver started" in l or "Setup of" in l and "done" in l, 15)
    if not check.expect(ready is not None and janus.alive(), "Janus did not start (see janus.log)"):
        return None
    time.sleep(0.3)
    return janus
