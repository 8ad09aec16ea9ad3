// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic probes (`ktrace record -p`): a kprobe writes an instant on entry
 * of a kernel function; a kretprobe writes a complete event from entry to
 * return on the calling thread, each call its own instance, so recursion
 * nests.  Registered when added (so errors surface before recording),
 * removed by STOP, by close and so by rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kprobes.h>
#include <linux/slab.h>

#include "compat/kprobes.h"
#include "internal.h"
#include "ktrace_api.h"

KTRACE_STRING(ktrace_cat_kprobe, "kprobe");

/*
 * One probe.  Life cycle: created and registered by KTRACE_IOC_ADD_PROBE,
 * unregistered and freed with the session's probe list (session lock).
 */
struct ktrace_dynprobe {
	struct list_head node;
	u32 type;
	union {
		struct kprobe kp;
		struct kretprobe krp;
	};
	struct ktrace_string name;
	char symbol[KTRACE_PROBE_SYMBOL_LEN];
};

static int on_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct ktrace_dynprobe *p = container_of(kp, struct ktrace_dynprobe, kp);

	ktrace_instant(&ktrace_cat_kprobe, &p->name, NULL, 0);
	return 0;
}

static int on_call(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(u64 *)ri->data = ktrace_clock();
	return 0;
}

static int on_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = ktrace_get_kretprobe(ri);
	struct ktrace_dynprobe *p;

	if (!krp)
		return 0;
	p = container_of(krp, struct ktrace_dynprobe, krp);
	ktrace_complete(&ktrace_cat_kprobe, &p->name, *(u64 *)ri->data, NULL, 0);
	return 0;
}

static bool valid_symbol(const char *sym, size_t size)
{
	size_t len = strnlen(sym, size);

	if (!len || len == size)
		return false;
	for (; *sym; sym++)
		if (!isalnum(*sym) && *sym != '_' && *sym != '.')
			return false;
	return true;
}

int ktrace_dynprobe_add_locked(struct ktrace_session *s, const struct ktrace_probe *req)
{
	struct ktrace_dynprobe *p;
	int ret;

	lockdep_assert_held(&s->lock);
	if (req->type > KTRACE_PROBE_DURATION ||
	    memchr_inv(req->reserved, 0, sizeof(req->reserved)) ||
	    !valid_symbol(req->symbol, sizeof(req->symbol)))
		return -EINVAL;
	if (!s->configured || s->running)
		return s->running ? -EBUSY : -EINVAL;
	if (s->nr_probes >= KTRACE_MAX_PROBES)
		return -E2BIG;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	strscpy(p->symbol, req->symbol, sizeof(p->symbol));
	p->name.text = p->symbol;
	p->name.len = strlen(p->symbol);
	p->type = req->type;
	if (p->type == KTRACE_PROBE_INSTANT) {
		p->kp.symbol_name = p->symbol;
		p->kp.pre_handler = on_entry;
		ret = register_kprobe(&p->kp);
	} else {
		p->krp.kp.symbol_name = p->symbol;
		p->krp.entry_handler = on_call;
		p->krp.handler = on_return;
		p->krp.data_size = sizeof(u64);
		p->krp.maxactive = 64;
		ret = register_kretprobe(&p->krp);
	}
	if (ret) {
		kfree(p);
		return ret;
	}
	list_add_tail(&p->node, &s->probes);
	s->nr_probes++;
	return 0;
}

void ktrace_dynprobes_remove_locked(struct ktrace_session *s)
{
	struct ktrace_dynprobe *p, *tmp;

	lockdep_assert_held(&s->lock);
	list_for_each_entry_safe(p, tmp, &s->probes, node) {
		if (p->type == KTRACE_PROBE_INSTANT)
			unregister_kprobe(&p->kp);
		else
			unregister_kretprobe(&p->krp);
		list_del(&p->node);
		kfree(p);
	}
	s->nr_probes = 0;
}
