// SPDX-License-Identifier: GPL-2.0
/*
 * The unit-test binary.
 *
 * kselftest_harness.h defines globals and keeps its test list in static
 * variables, so it works in exactly one translation unit: two .c files
 * including it do not link, and a second file's tests would be invisible to
 * this main().  The test groups are therefore *_test.inc files included here;
 * add a new group by adding its #include below.
 */
#include "kselftest_harness.h"
#include "require.h"
#include "scratch.h"

#include "parse_test.inc"
#include "report_test.inc"
#include "json_test.inc"
#include "host_state_test.inc"
#include "backing_test.inc"
#include "stats_test.inc"
#include "host_desc_test.inc"
#include "topology_test.inc"
#include "record_test.inc"
#include "page_source_test.inc"
#include "uffd_test.inc"
#include "trace_test.inc"
#include "order_stats_test.inc"

TEST_HARNESS_MAIN
