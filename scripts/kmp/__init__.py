# SPDX-License-Identifier: GPL-2.0
"""kvm-mmu-perf's result records read, compared, swept and summarised
(docs/results.md); scripts/kmp_results.py is its command line."""
