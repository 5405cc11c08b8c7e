"""The web checks' stand-in for a call's signalling between the sender and the page."""
import json
import threading
import time


class StandInCallClient:
    """The page's media reports go to the sender's stdin; the sender's
    transceiver events go to the page, as a re-subscribe command."""

    def __init__(self, sender, page):
        self.sender, self.page = sender, page
        self.running = True
        self.relayed = []      # (time, direction, event)
        threading.Thread(target=self.relay, daemon=True).start()

    def relay(self):
        reports_done = transceivers_done = 0
        while self.running:
            reports = self.page.of("report")
            for _, value in reports[reports_done:]:
                event = {"event": "report", "screenStalled": bool(value.get("screenStalled"))}
                self.sender.send(json.dumps(event, separators=(",", ":")))
                self.relayed.append((time.monotonic(), "to sender", event))
            reports_done = len(reports)
            transceivers = self.sender.events("transceiver")
            for _, event in transceivers[transceivers_done:]:
                self.page.command({"cmd": "resubscribe", "reason": event.get("reason"), "ssrc": event.get("ssrc")})
                self.relayed.append((time.monotonic(), "to page", event))
            transceivers_done = len(transceivers)
            time.sleep(0.05)

    def stop(self):
        self.running = False
