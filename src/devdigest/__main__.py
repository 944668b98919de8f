"""``devdigest`` and ``python -m devdigest``: the command line, quiet on Ctrl-C at any moment.

The command's modules take about a second to import; this module imports nothing heavy, so a
Ctrl-C during that second ends with one line instead of a traceback.
"""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from devdigest.cli import main as run
    except KeyboardInterrupt:
        print("interrupted before starting: nothing was changed", file=sys.stderr)
        return 130
    return run()


if __name__ == "__main__":
    sys.exit(main())
