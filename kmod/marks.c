// SPDX-License-Identifier: GPL-2.0
/* /dev/ktrace-mark: instant, duration and counter events written by user space. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/moduleparam.h>
#include <linux/uaccess.h>

#include "internal.h"

static int ktrace_mark_gid = -1;
module_param_named(mark_gid, ktrace_mark_gid, int, 0644);
MODULE_PARM_DESC(mark_gid, "group that may write marks besides root (-1: none)");

static const u8 mark_event_type[] = {
	[KTRACE_MARK_INSTANT] = KTRACE_FXT_EV_INSTANT,
	[KTRACE_MARK_BEGIN] = KTRACE_FXT_EV_DURATION_BEGIN,
	[KTRACE_MARK_END] = KTRACE_FXT_EV_DURATION_END,
	[KTRACE_MARK_COUNTER] = KTRACE_FXT_EV_COUNTER,
};

static int ktrace_mark_open(struct inode *inode, struct file *file)
{
	int gid = READ_ONCE(ktrace_mark_gid);

	if (capable(CAP_SYS_ADMIN) || (gid >= 0 && in_group_p(KGIDT_INIT(gid))))
		return nonseekable_open(inode, file);
	return -EACCES;
}

/* Encodes the mark with inline strings: user strings are not interned. */
static u32 encode(u64 *rec, const struct ktrace_mark *m, const char *text, u64 ts)
{
	u16 cref = ktrace_fxt_sref_inline(m->cat_len), nref = ktrace_fxt_sref_inline(m->name_len);
	u32 type = mark_event_type[m->type], nargs = 0, n;

	n = ktrace_fxt_event_head(rec, ts, 0, current->tgid, current->pid, cref, text, nref,
				  text + m->cat_len);
	if (m->type == KTRACE_MARK_COUNTER) {
		n += ktrace_fxt_put_arg(&rec[n], KTRACE_FXT_ARG_INT64, KTRACE_FXT_STR_VALUE,
					m->value);
		nargs = 1;
	}
	/* A counter's id is 0. */
	return ktrace_fxt_event_finish(rec, n, type, nargs, 0, cref, nref, 0);
}

static ssize_t ktrace_mark_write(struct file *file, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	char text[2 * KTRACE_MARK_MAX_LEN];
	u64 rec[8 + 2 * KTRACE_MARK_MAX_LEN / 8], ts;
	struct ktrace_session *s;
	struct ktrace_mark m;
	u32 words;
	int ret;

	if (count < sizeof(m))
		return -EINVAL;
	ret = copy_struct_from_user(&m, sizeof(m), ubuf, sizeof(m));
	if (ret)
		return ret;
	if (m.size != sizeof(m) || m.type > KTRACE_MARK_COUNTER || !m.name_len ||
	    m.cat_len > KTRACE_MARK_MAX_LEN || m.name_len > KTRACE_MARK_MAX_LEN ||
	    count != sizeof(m) + m.cat_len + m.name_len ||
	    memchr_inv(m.reserved, 0, sizeof(m.reserved)))
		return -EINVAL;
	if (copy_from_user(text, ubuf + sizeof(m), m.cat_len + m.name_len))
		return -EFAULT;

	/* The user's bytes are copied above: nothing below may fault or sleep. */
	preempt_disable();
	s = rcu_dereference_sched(ktrace_active);
	if (s) {
		ts = ktrace_now();
		words = encode(rec, &m, text, ts);
		ktrace_buf_write(s->bufs[smp_processor_id()], rec, words, ts);
	}
	preempt_enable();
	return count;
}

static const struct file_operations ktrace_mark_fops = {
	.owner		= THIS_MODULE,
	.open		= ktrace_mark_open,
	.write		= ktrace_mark_write,
};

/* Open to all; ktrace_mark_open() decides who may write. */
static struct miscdevice ktrace_mark_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ktrace-mark",
	.fops	= &ktrace_mark_fops,
	.mode	= 0666,
};

int ktrace_marks_init(void)
{
	return misc_register(&ktrace_mark_misc);
}

void ktrace_marks_exit(void)
{
	misc_deregister(&ktrace_mark_misc);
}
