// SPDX-License-Identifier: GPL-2.0
/*
 * Runs COMMAND with every program of a BPF object attached (bench/
 * bpf_floor.bpf.c: the floor under a BPF recorder), and exits with its
 * status.
 * usage: bpf_floor OBJ COMMAND [ARG...]   (as root)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bpf_floor OBJ COMMAND [ARG...]\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bpf_floor: cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "bpf_floor: cannot attach %s\n", bpf_program__name(prog));
			return 1;
		}
	}
	pid = fork();
	if (pid < 0) {
		perror("bpf_floor: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("bpf_floor: waitpid");
		return 1;
	}
	/* Exiting detaches and frees the programs. */
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
