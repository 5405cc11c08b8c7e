"""Running the checks: each in a network namespace of its own (a fresh
`python3 Tools/interop --inside …` under unshare), its row written to a
result.json the outer run reads."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import traceback

import logs
import netns
import processes
from interop import report
from interop.check import Check
from interop.suite import CHECKS

CHECK_SECONDS = 150


def run_inside(name, bin_dir, work, out_path):
    """In the check's own network namespace."""
    netns.loopback_up()

    def terminated(signum, frame):
        raise RuntimeError("stopped after the check's time ran out")
    signal.signal(signal.SIGTERM, terminated)
    function = dict((n, f) for n, f, _ in CHECKS)[name]
    check = Check(name, bin_dir, work)
    try:
        function(check)
    except Exception as error:  # a check that breaks is a failure, with its reason
        traceback.print_exc()
        check.failures.append("%s: %s" % (type(error).__name__, error))
    finally:
        check.finish()
    row = dict(check.row)
    row["failures"] = check.failures
    with open(out_path, "w") as f:
        json.dump(row, f)
    return 0 if not check.failures else 1


def run_isolated(entry, name, bin_dir, work):
    """One check in a namespace of its own; its row."""
    out_path = os.path.join(work, "result.json")
    with open(os.path.join(work, "check.log"), "w") as log:
        inner = subprocess.Popen(netns.isolated([sys.executable, entry, "--inside", name, bin_dir, work, out_path]),
                                 stdout=log, stderr=subprocess.STDOUT)
        try:
            inner.wait(CHECK_SECONDS)
        except subprocess.TimeoutExpired:
            # SIGTERM lets the check stop the processes it started.
            processes.end(inner, 20)
    try:
        with open(out_path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"check": name, "peer": "", "codec": "", "policy": "", "sent": None, "decoded": None, "size": "",
                "first": None, "recovery": None, "notes": "", "failures": ["the check did not finish (see check.log)"]}


def run_all(entry, names, bin_dir, keep):
    """Every named check, a line each as it ends, then the table; the exit status."""
    folder = logs.work_dir("screenshare-interop-")
    began = time.monotonic()
    rows = []
    for name in names:
        work = os.path.join(folder, name)
        os.makedirs(work)
        t0 = time.monotonic()
        row = run_isolated(entry, name, bin_dir, work)
        rows.append(row)
        print("%-18s %5.1f s  %s" % (name, time.monotonic() - t0, report.result(row)), flush=True)
        for failure in row["failures"]:
            print("    " + failure, flush=True)
        if row.get("notes"):
            print("    " + row["notes"], flush=True)
    failed = sum(1 for r in rows if r["failures"])
    print()
    print(report.table(rows))
    print()
    print("interop: %.0f s; logs in %s%s" % (time.monotonic() - began, folder, "" if failed or keep else " (removed)"))
    if not failed and not keep:
        shutil.rmtree(folder, ignore_errors=True)
    print("%d passed, %d failed" % (len(rows) - failed, failed))
    return 1 if failed else 0
