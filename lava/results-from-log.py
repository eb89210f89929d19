#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The results folder of a LAVA job, out of its log, for run.sh compare.

  lava/results-from-log.py LOG OUTDIR

LOG is lava-run's output (a record a line) or the log a LAVA server gives
for a job (plain.log, or the YAML list that its "log" link downloads).
kmp-lava-group.sh wrote the folder there as a base64 tarball between its
KMP-REC-LAVA-BEGIN and KMP-REC-LAVA-END lines; the folder is unpacked into
OUTDIR, which must not exist yet.  Exit 2 when the log has no whole folder.
"""
import base64
import io
import os
import sys
import tarfile

import yaml


def target_lines(path):
    """The device's console lines of a LAVA log, in order."""
    with open(path, errors="replace") as f:
        text = f.read()
    if text.lstrip().startswith("- "):        # a server's YAML list
        records = yaml.safe_load(text) or []
    else:                                     # lava-run's stdout: a mapping a line
        records = [yaml.safe_load(line) for line in text.splitlines()
                   if '"lvl": "target"' in line]
    for rec in records:
        if isinstance(rec, dict) and rec.get("lvl") == "target" and isinstance(rec.get("msg"), str):
            yield rec["msg"]


def folder_payload(lines):
    """The base64 text between the markers, or None when they are not both there."""
    body, inside = [], False
    for line in lines:
        if line.startswith("KMP-REC-LAVA-BEGIN"):
            body, inside = [], True
        elif line == "KMP-REC-LAVA-END" and inside:
            return "".join(body)
        elif inside and line.startswith("KMP-REC "):
            body.append(line[len("KMP-REC "):].strip())
    return None


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    log, outdir = argv
    if os.path.exists(outdir):
        print("results-from-log.py: %s exists: name a new folder" % outdir, file=sys.stderr)
        return 2
    try:
        payload = folder_payload(target_lines(log))
    except OSError as e:
        print("results-from-log.py: cannot read %s: %s" % (log, e.strerror), file=sys.stderr)
        return 2
    if payload is None:
        print("results-from-log.py: %s holds no whole results folder (no KMP-REC-LAVA-BEGIN"
              " ... KMP-REC-LAVA-END: the group did not finish, or made no folder)" % log,
              file=sys.stderr)
        return 2
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(payload)), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = os.path.normpath(member.name)
            if not (member.isfile() or member.isdir()) or name.startswith(("/", "..")):
                print("results-from-log.py: refusing %r in the tarball" % member.name,
                      file=sys.stderr)
                return 2
        tar.extractall(outdir)
    print(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
