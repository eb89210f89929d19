#!/bin/sh
# The emulated host's /init runs this: a shell on the console, where LAVA's
# test action types its commands once it sees the prompt (the jobs' prompts).
echo "kvm-mmu-perf: the emulated KVM host is up; a shell for LAVA"
PS1='kmp-host# ' exec setsid cttyhack sh
