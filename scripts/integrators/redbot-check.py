"""
REDbot (https://redbot.org, PyPI `redbot`) on one URL, as its command line does, with request headers of
our own (REDbot's command line takes none, and the order endpoints need a bearer token):

    python redbot-check.py URL [NAME:VALUE ...]

Prints the status line, the warnings and bad notes REDbot makes (and how many of each level: good, info,
warning, bad), and exits 1 when any note (or subnote) is bad, 2 when the URL could not be fetched.
"""

import sys
from configparser import ConfigParser

import thor
from httplint.note import levels
from redbot.resource import HttpResource


def main() -> int:
    url, *header_args = sys.argv[1:]
    headers = [tuple(part.strip() for part in arg.split(":", 1)) for arg in header_args]
    parser = ConfigParser()
    parser.read_dict({"redbot": {"enable_local_access": "True"}})
    resource = HttpResource(parser["redbot"])
    resource.set_request(url, headers=headers)

    @thor.events.on(resource)
    def check_done() -> None:
        thor.stop()

    resource.check()
    thor.run()

    shown = url if not headers else f"{url} (with {', '.join(name for name, _ in headers)})"
    if not resource.has_response:
        error = resource.fetch_error
        print(f"[redbot] {shown}: no response ({error.desc if error else 'unknown'})")
        return 2
    response = resource.response
    print(f"[redbot] {shown}: {response.status_code_str} {response.status_phrase}")
    counts = {level: 0 for level in levels}
    for note in response.notes:
        for level, summary in [(note.level, note.summary)] + [(sub.level, sub.summary) for sub in note.subnotes]:
            counts[level] += 1
            if level in (levels.BAD, levels.WARN):
                print(f"  {level.value}: {summary}")
    print("  notes: " + ", ".join(f"{count} {level.value}" for level, count in counts.items()))
    return 1 if counts[levels.BAD] else 0


if __name__ == "__main__":
    sys.exit(main())
