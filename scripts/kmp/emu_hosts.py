# SPDX-License-Identifier: GPL-2.0
"""configs/emu-hosts, the emulated KVM hosts' table (its header says what
each column is): here, the host.mmu a record must have when its folder ran
on an emulated host of a given arch and --mmu."""
import os

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs",
                     "emu-hosts")


def record_mmu(arch, mmu):
    """The RECORD column of the line for arch and mmu, or None."""
    try:
        with open(TABLE) as f:
            for line in f:
                cols = line.split(None, 6)
                if len(cols) == 7 and not cols[0].startswith("#") and \
                        cols[:2] == [arch, mmu]:
                    return cols[6].strip()
    except OSError:
        pass
    return None
