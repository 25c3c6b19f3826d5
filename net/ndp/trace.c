// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: the one place the tracepoints of include/trace/events/ndp.h are
 * created.
 */
#include "protocol.h"

#define CREATE_TRACE_POINTS
#include <trace/events/ndp.h>
