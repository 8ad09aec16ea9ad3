// SPDX-License-Identifier: GPL-2.0
/* How close a recorder's reader came to falling behind its writers. */
#include "lib/utils.h"
#include "record/drain_stats.h"

void drain_stats_pass(struct drain_stats *d)
{
	uint64_t now = now_mono_ns();

	if (d->passes++ && now - d->last_pass > d->max_gap)
		d->max_gap = now - d->last_pass;
	d->last_pass = now;
}

void drain_stats_report(const struct drain_stats *d, const char *backend, uint64_t size,
			unsigned int ncpus)
{
	pr_info("%s reader: %llu passes, at most %.1f ms apart; the fullest buffer held %llu KiB of %llu (%.1f%%, CPU %u%s) at the start of a pass",
		backend, (unsigned long long)d->passes, d->max_gap / 1e6,
		(unsigned long long)d->peak >> 10, (unsigned long long)size >> 10,
		size ? 100.0 * d->peak / size : 0.0, d->peak_buf % ncpus,
		d->peak_buf >= ncpus ? ", probes" : "");
}
