// SPDX-License-Identifier: GPL-2.0
/* /dev/ktrace: one session per open file, versioned ioctls, read-only mmap, poll. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat/mm.h"
#include "internal.h"

/* One session at a time: a second open() gets -EBUSY. */
static atomic_t ktrace_open_count = ATOMIC_INIT(0);

static int ktrace_open(struct inode *inode, struct file *file)
{
	struct ktrace_session *s;

	if (atomic_cmpxchg(&ktrace_open_count, 0, 1))
		return -EBUSY;
	s = ktrace_session_new();
	if (!s) {
		atomic_set(&ktrace_open_count, 0);
		return -ENOMEM;
	}
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int ktrace_release(struct inode *inode, struct file *file)
{
	ktrace_session_free(file->private_data);
	atomic_set(&ktrace_open_count, 0);
	return 0;
}

/* Copies a size-first struct in: smaller (older) and larger (zero-tailed) ones are fine. */
static int copy_arg_in(void *dst, size_t ksize, void __user *arg)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < sizeof(u32) * 2 || usize > PAGE_SIZE)
		return -EINVAL;
	return copy_struct_from_user(dst, ksize, arg, usize);
}

/* Copies a size-first struct out, no more than the caller's size. */
static int copy_arg_out(void __user *arg, void *src, size_t ksize)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < sizeof(u32) * 2 || usize > PAGE_SIZE)
		return -EINVAL;
	*(u32 *)src = min_t(u32, usize, ksize);
	if (copy_to_user(arg, src, min_t(u32, usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(arg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

/* CONFIGURE's number keeps the size of the struct before the throttling layout. */
static_assert(offsetof(struct ktrace_config, throttle) == KTRACE_CONFIG_SIZE_VER1);
/* And STATS's the size of the struct before the span. */
static_assert(offsetof(struct ktrace_stats, start_ts) == KTRACE_STATS_SIZE_VER1);

/* An ioctl's argument, copied in before and out after the session lock. */
union ktrace_ioctl_arg {
	struct ktrace_config cfg;
	struct ktrace_geometry geo;
	struct ktrace_consume con;
	struct ktrace_stats st;
	struct ktrace_probe probe;
	struct ktrace_stacks stacks;
	struct ktrace_bench bench;
};

static void ktrace_geometry_locked(struct ktrace_session *s, struct ktrace_geometry *geo)
{
	lockdep_assert_held(&s->lock);
	geo->nr_cpus = nr_cpu_ids;
	geo->buffer_size = s->buffer_size;
	geo->subbuf_size = s->subbuf_size;
	geo->nr_subbufs = s->nr_subbufs;
	geo->cpu_stride = s->cpu_stride;
	geo->meta_size = s->meta_size;
}

/* Every command's work, under the session lock (the states: internal.h). */
static int ktrace_ioctl_locked(struct ktrace_session *s, unsigned int cmd,
			       union ktrace_ioctl_arg *u)
{
	lockdep_assert_held(&s->lock);
	switch (cmd) {
	case KTRACE_IOC_CONFIGURE:
		return ktrace_session_configure_locked(s, &u->cfg);
	case KTRACE_IOC_GEOMETRY:
		if (!s->configured)
			return -EINVAL;
		ktrace_geometry_locked(s, &u->geo);
		return 0;
	case KTRACE_IOC_START:
		return ktrace_session_start_locked(s);
	case KTRACE_IOC_STOP:
		return ktrace_session_stop_locked(s);
	case KTRACE_IOC_FLUSH:
		if (!s->configured)
			return -EINVAL;
		ktrace_session_flush_locked(s);
		return 0;
	case KTRACE_IOC_REARM:
		return ktrace_session_rearm_locked(s);
	case KTRACE_IOC_CONSUME:
		if (memchr_inv(u->con.reserved, 0, sizeof(u->con.reserved)))
			return -EINVAL;
		return ktrace_buf_consume_locked(s, u->con.cpu, u->con.consumed);
	case KTRACE_IOC_ADD_PROBE:
		return ktrace_dynprobe_add_locked(s, &u->probe);
	case KTRACE_IOC_STATS:
		ktrace_session_stats_locked(s, &u->st);
		return 0;
	case KTRACE_IOC_STACKS:
		return s->configured ? 0 : -EINVAL;	/* copied after unlocking */
	case KTRACE_IOC_BENCH:
		return ktrace_bench_locked(s, &u->bench);
	default:
		return -ENOTTY;
	}
}

/*
 * One lock for every command.  User memory is copied outside it: a fault
 * takes mmap_lock, which ktrace_mmap() holds while it takes the session lock.
 */
static long ktrace_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	struct ktrace_session *s = file->private_data;
	void __user *arg = (void __user *)uarg;
	union ktrace_ioctl_arg u;
	int ret = 0;

	if (cmd == KTRACE_IOC_ABI_VERSION)
		return KTRACE_ABI_VERSION;
	memset(&u, 0, sizeof(u));
	if (cmd == KTRACE_IOC_CONFIGURE)
		ret = copy_arg_in(&u.cfg, sizeof(u.cfg), arg);
	else if (cmd == KTRACE_IOC_CONSUME)
		ret = copy_arg_in(&u.con, sizeof(u.con), arg);
	else if (cmd == KTRACE_IOC_ADD_PROBE)
		ret = copy_arg_in(&u.probe, sizeof(u.probe), arg);
	else if (cmd == KTRACE_IOC_STACKS)
		ret = copy_arg_in(&u.stacks, sizeof(u.stacks), arg);
	else if (cmd == KTRACE_IOC_BENCH)
		ret = copy_arg_in(&u.bench, sizeof(u.bench), arg);
	if (ret)
		return ret;

	mutex_lock(&s->lock);
	ret = ktrace_ioctl_locked(s, cmd, &u);
	mutex_unlock(&s->lock);
	if (ret)
		return ret;

	if (cmd == KTRACE_IOC_GEOMETRY)
		return copy_arg_out(arg, &u.geo, sizeof(u.geo));
	if (cmd == KTRACE_IOC_STATS)
		return copy_arg_out(arg, &u.st, sizeof(u.st));
	if (cmd == KTRACE_IOC_BENCH)
		return copy_arg_out(arg, &u.bench, sizeof(u.bench));
	if (cmd == KTRACE_IOC_STACKS) {
		ret = ktrace_stacks_copy(s, &u.stacks);
		return ret ? ret : copy_arg_out(arg, &u.stacks, sizeof(u.stacks));
	}
	if (cmd == KTRACE_IOC_STOP)
		wake_up_interruptible(&s->wq);	/* poll() now says EPOLLHUP */
	return 0;
}

/* CPU n's meta page and buffer, at offset n * cpu_stride, read-only. */
static int ktrace_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ktrace_session *s = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned int cpu;
	int ret = -EINVAL;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	mutex_lock(&s->lock);
	if (!s->configured)
		goto out;
	cpu = div64_u64(off, s->cpu_stride);
	if (off != (u64)cpu * s->cpu_stride || len != s->cpu_stride || cpu >= nr_cpu_ids ||
	    !cpu_possible(cpu))
		goto out;
	ktrace_vma_make_readonly(vma);
	ret = remap_vmalloc_range(vma, s->bufs[cpu]->area, 0);
out:
	mutex_unlock(&s->lock);
	return ret;
}

static __poll_t ktrace_poll(struct file *file, poll_table *wait)
{
	struct ktrace_session *s = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &s->wq, wait);
	mutex_lock(&s->lock);
	if (s->configured && ktrace_bufs_readable(s))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (s->configured && !s->running)
		mask = EPOLLHUP;
	mutex_unlock(&s->lock);
	return mask;
}

/* No .llseek: nonseekable_open() makes lseek() fail with -ESPIPE everywhere. */
static const struct file_operations ktrace_fops = {
	.owner		= THIS_MODULE,
	.open		= ktrace_open,
	.release	= ktrace_release,
	.unlocked_ioctl	= ktrace_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= ktrace_mmap,
	.poll		= ktrace_poll,
};

static struct miscdevice ktrace_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ktrace",
	.fops	= &ktrace_fops,
	.mode	= 0600,
};

int ktrace_dev_init(void)
{
	return misc_register(&ktrace_misc);
}

void ktrace_dev_exit(void)
{
	misc_deregister(&ktrace_misc);
}
