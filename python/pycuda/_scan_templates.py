"""The original's three-phase scan, as templates: ``SCAN_INTERVALS_SOURCE``,
``INCLUSIVE_UPDATE_SOURCE``, ``EXCLUSIVE_UPDATE_SOURCE`` (and the ``SHARED_PREAMBLE`` they
start with), with the original's kernel names, parameters and ``render()`` keywords.

Each is the template text (a ``str``, in the ``${name}`` placeholders that Mako also reads) with
a ``render(**values)`` method, as the original's Mako templates had. The keywords: ``wg_size``
(threads per block), ``wg_seq_batches`` (elements per thread and unit, intervals only),
``name_prefix``, ``scan_type`` (C type), ``scan_expr`` (in ``a``, ``b``; ``a`` the earlier),
``neutral`` (exclusive update only) and ``preamble``. Launched as the original did:

1. ``<prefix>_scan_intervals(input, N, interval_size, output, group_results)`` on one block per
   interval (each of ``interval_size`` elements): the scan of each interval and its total;
2. the same kernel on one block over the ``group_results``: the totals' scan;
3. ``<prefix>_final_update(output, N, interval_size, group_results)``, one block per
   interval: each interval combined with the totals before it (shifted by one for the
   exclusive scan).

    src = SCAN_INTERVALS_SOURCE.render(wg_size=128, wg_seq_batches=6, name_prefix="scan",
                                       scan_type="int", scan_expr="a+b", neutral="0",
                                       preamble="")

``InclusiveScanKernel`` and ``ExclusiveScanKernel`` scan in one pass instead (pycuda.scan);
their ``final_update_tp`` is the update template of the original's kind.
"""

from __future__ import annotations

import string
from typing import Any

from pycuda._cluda import CLUDA_PREAMBLE


class SourceTemplate(str):
    """Kernel source with ``${name}`` placeholders, and ``render()`` to fill them in."""

    def placeholders(self) -> set[str]:
        """The names this template needs."""
        return {
            m.group("braced") or m.group("named")
            for m in string.Template.pattern.finditer(self)
            if m.group("braced") or m.group("named")
        }

    def render(self, **values: Any) -> str:
        """The source with each ``${name}`` replaced by ``str(values[name])``; other keywords
        are ignored (as Mako does)."""
        missing = self.placeholders() - set(values)
        if missing:
            raise TypeError(f"render() needs the keyword arguments {sorted(missing)}")
        return string.Template(self).substitute({k: str(v) for k, v in values.items()})


# No "$" other than the placeholders, and no line starting with "%" or "##": the same text is
# then a valid Mako template too.
SHARED_PREAMBLE = (
    CLUDA_PREAMBLE
    + """
#include <pycuda-complex.hpp>

#define WG_SIZE ${wg_size}
#define SCAN_EXPR(a, b) ${scan_expr}

${preamble}

typedef ${scan_type} scan_type;
"""
)

SCAN_INTERVALS_SOURCE = SourceTemplate(
    SHARED_PREAMBLE
    + """
#define K ${wg_seq_batches}

// A unit is WG_SIZE * K consecutive elements: thread t scans elements t*K .. t*K + K-1 of it.
KERNEL
REQD_WG_SIZE(WG_SIZE, 1, 1)
void ${name_prefix}_scan_intervals(
    GLOBAL_MEM scan_type *input,
    const unsigned int N,
    const unsigned int interval_size,
    GLOBAL_MEM scan_type *output,
    GLOBAL_MEM scan_type *group_results)
{
    LOCAL_MEM scan_type unit[WG_SIZE * K];
    LOCAL_MEM scan_type totals[WG_SIZE];

    const unsigned int begin = interval_size * GID_0;
    const unsigned int end = min(begin + interval_size, N);
    scan_type carry;  // everything of this interval before the unit; valid when has_carry
    bool has_carry = false;

    for (unsigned int base = begin; base < end; base += WG_SIZE * K)
    {
        const unsigned int count = min((unsigned int)(WG_SIZE * K), end - base);
        for (unsigned int k = 0; k < K; ++k)
        {
            const unsigned int j = k * WG_SIZE + LID_0;  // coalesced
            if (j < count)
                unit[j] = input[base + j];
        }
        local_barrier();

        // This thread's elements, scanned in order.
        const unsigned int first = LID_0 * K;
        const unsigned int mine = first < count ? min((unsigned int)K, count - first) : 0;
        for (unsigned int k = 1; k < mine; ++k)
            unit[first + k] = SCAN_EXPR(unit[first + k - 1], unit[first + k]);
        if (mine)
            totals[LID_0] = unit[first + mine - 1];
        local_barrier();

        // The threads' totals, scanned across the block (threads past the data hold nothing
        // that an earlier thread reads).
        for (unsigned int offset = 1; offset < WG_SIZE; offset *= 2)
        {
            scan_type value = totals[LID_0];
            const bool combine = LID_0 >= offset && mine;
            if (combine)
                value = SCAN_EXPR(totals[LID_0 - offset], value);
            local_barrier();
            if (combine)
                totals[LID_0] = value;
            local_barrier();
        }

        // Everything before this thread's elements: the earlier units, then earlier threads.
        if (mine && (has_carry || LID_0 > 0))
        {
            scan_type prefix = has_carry ? carry : totals[LID_0 - 1];
            if (has_carry && LID_0 > 0)
                prefix = SCAN_EXPR(prefix, totals[LID_0 - 1]);
            for (unsigned int k = 0; k < mine; ++k)
                unit[first + k] = SCAN_EXPR(prefix, unit[first + k]);
        }
        local_barrier();

        for (unsigned int k = 0; k < K; ++k)
        {
            const unsigned int j = k * WG_SIZE + LID_0;
            if (j < count)
                output[base + j] = unit[j];
        }
        carry = unit[count - 1];
        has_carry = true;
        local_barrier();
    }

    if (LID_0 == 0 && has_carry)
        group_results[GID_0] = carry;
}
"""
)

INCLUSIVE_UPDATE_SOURCE = SourceTemplate(
    SHARED_PREAMBLE
    + """
KERNEL
REQD_WG_SIZE(WG_SIZE, 1, 1)
void ${name_prefix}_final_update(
    GLOBAL_MEM scan_type *output,
    const unsigned int N,
    const unsigned int interval_size,
    GLOBAL_MEM scan_type *group_results)
{
    if (GID_0 == 0)
        return;  // the first interval's scan is already complete

    const unsigned int begin = interval_size * GID_0;
    const unsigned int end = min(begin + interval_size, N);
    const scan_type before = group_results[GID_0 - 1];

    for (unsigned int i = begin + LID_0; i < end; i += WG_SIZE)
        output[i] = SCAN_EXPR(before, output[i]);
}
"""
)

EXCLUSIVE_UPDATE_SOURCE = SourceTemplate(
    SHARED_PREAMBLE
    + """
KERNEL
REQD_WG_SIZE(WG_SIZE, 1, 1)
void ${name_prefix}_final_update(
    GLOBAL_MEM scan_type *output,
    const unsigned int N,
    const unsigned int interval_size,
    GLOBAL_MEM scan_type *group_results)
{
    LOCAL_MEM scan_type chunk[WG_SIZE];
    LOCAL_MEM scan_type last;  // the inclusive value before the chunk

    const unsigned int begin = interval_size * GID_0;
    const unsigned int end = min(begin + interval_size, N);
    scan_type carry = ${neutral};
    if (GID_0 != 0)
        carry = SCAN_EXPR(carry, group_results[GID_0 - 1]);

    // Each element becomes the carry combined with the inclusive value one before it, chunk by
    // chunk: the chunk is read whole before any of it is written.
    for (unsigned int base = begin; base < end; base += WG_SIZE)
    {
        const unsigned int i = base + LID_0;
        if (i < end)
            chunk[LID_0] = output[i];
        local_barrier();
        if (i < end)
        {
            if (LID_0 > 0)
                output[i] = SCAN_EXPR(carry, chunk[LID_0 - 1]);
            else
                output[i] = base == begin ? carry : SCAN_EXPR(carry, last);
        }
        local_barrier();
        if (LID_0 == WG_SIZE - 1)
            last = chunk[WG_SIZE - 1];
        local_barrier();
    }
}
"""
)
