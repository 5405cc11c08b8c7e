"""The web checks' stand-in for a call's signalling between the sender and the page."""
import json
import threading
import time


class StandInCallClient:
    """The pages' media reports go to the sender's stdin; the sender's
    transceiver events go to the pages, as a re-subscribe command. Several
    pages watching through one SFU are one receiver to the sender: its
    report is stalled while any page's is, and a new stream is for the pages
    that were stalled (all of them when none was)."""

    def __init__(self, sender, page):
        self.sender, self.page = sender, page
        self.running = True
        self.relayed = []      # (time, direction, event)
        threading.Thread(target=self.relay, daemon=True).start()

    def relay(self):
        reports_done = transceivers_done = 0
        stalled = {}           # page → its latest screenStalled
        told = None
        while self.running:
            reports = self.page.of("report")
            for _, value in reports[reports_done:]:
                stalled[value.get("viewer")] = bool(value.get("screenStalled"))
                now_stalled = any(stalled.values())
                if now_stalled != told:
                    told = now_stalled
                    event = {"event": "report", "screenStalled": now_stalled}
                    self.sender.send(json.dumps(event, separators=(",", ":")))
                    self.relayed.append((time.monotonic(), "to sender", event))
            reports_done = len(reports)
            transceivers = self.sender.events("transceiver")
            for _, event in transceivers[transceivers_done:]:
                command = {"cmd": "resubscribe", "reason": event.get("reason"), "ssrc": event.get("ssrc")}
                for viewer in [v for v, s in stalled.items() if s] or [None]:
                    self.page.command(dict(command, viewer=viewer) if viewer else command)
                self.relayed.append((time.monotonic(), "to page", event))
            transceivers_done = len(transceivers)
            time.sleep(0.05)

    def stop(self):
        self.running = False
