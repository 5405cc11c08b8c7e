"""Where the project's programs are, the one rule every tool follows:
`--bin DIR`, else $SCREENSHARE_BIN, else .build/debug (tests, interop) or
.build/release (benchmarks, which measure speed) in the repository, built
with `swift build` when a program is missing there."""
import os
import subprocess
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)


def add_bin_option(parser):
    parser.add_argument("--bin", metavar="DIR",
                        help="the folder holding screenshare and screen-receiver (default $SCREENSHARE_BIN, "
                             "else a build in .build)")


def find(given=None, build="debug", needed=("screenshare", "screen-receiver")):
    """The folder holding `needed`: `given` (a tool's --bin), else $SCREENSHARE_BIN, else .build/<build>."""
    directory = given or os.environ.get("SCREENSHARE_BIN")
    if directory:
        directory = os.path.abspath(directory)
        missing = [n for n in needed if not os.access(os.path.join(directory, n), os.X_OK)]
        if missing:
            sys.exit(f"{' and '.join(missing)} not found in {directory}")
        return directory
    directory = os.path.join(REPO, ".build", build)
    if not all(os.access(os.path.join(directory, n), os.X_OK) for n in needed):
        print(f"programs missing in {directory}: running swift build -c {build}", file=sys.stderr, flush=True)
        built = subprocess.run(["bash", "-o", "pipefail", "-c",
                                f"swift build -c {build} 2>&1 | {{ grep -v 'prohibited flag' || true; }}"], cwd=REPO)
        if built.returncode != 0:
            sys.exit("the build failed")
    return directory
