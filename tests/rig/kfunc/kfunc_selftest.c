// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kfunc_selftest - loads kfunc_selftest.bpf.o, attaches it, makes the LNet
 * test double run every scenario once and prints, for each lnet_finalize()
 * call, what bpf_lnetcap_msg_payload() returned:
 *   call <i> ret <n> <hex of the bytes>
 *   bad_addr_ret <n>
 *   offset_ret <n> <hex>
 * The guest script compares this with the double's log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define SELFTEST_SLOTS 64
#define SELFTEST_BUF 512

struct slot {
	int ret;
	unsigned int pad;
	unsigned char buf[SELFTEST_BUF];
};

static void hex(const unsigned char *p, int n)
{
	for (int i = 0; i < n; i++)
		printf("%02x", p[i]);
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *slots;
	int fd, err;

	if (argc != 3) {
		fprintf(stderr, "usage: kfunc_selftest OBJ SCENARIO\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "kfunc_selftest: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "kfunc_selftest: load failed: %d (is lnetcap_kfunc loaded, with BTF?)\n", err);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "kfunc_selftest: attach %s failed: %s\n",
				bpf_program__name(prog), strerror(errno));
			return 1;
		}
	}
	fd = open("/sys/kernel/debug/lnet/double_ctl", O_WRONLY);
	if (fd < 0 || write(fd, argv[2], strlen(argv[2])) < 0) {
		fprintf(stderr, "kfunc_selftest: double_ctl: %s\n", strerror(errno));
		return 1;
	}
	close(fd);

	struct {
		unsigned int calls;
		int bad_addr_ret;
		int offset_ret;
		unsigned char offset_buf[8];
	} g;
	struct bpf_map *data = bpf_object__find_map_by_name(obj, ".data");
	unsigned int zero = 0;

	slots = bpf_object__find_map_by_name(obj, "slots");
	if (!data || !slots ||
	    bpf_map_lookup_elem(bpf_map__fd(data), &zero, &g)) {
		fprintf(stderr, "kfunc_selftest: cannot read the program's globals\n");
		return 1;
	}
	for (unsigned int i = 0; i < g.calls && i < SELFTEST_SLOTS; i++) {
		struct slot s;

		if (bpf_map_lookup_elem(bpf_map__fd(slots), &i, &s))
			return 1;
		printf("call %u ret %d ", i, s.ret);
		hex(s.buf, s.ret > 0 ? s.ret : 0);
		printf("\n");
	}
	printf("bad_addr_ret %d\n", g.bad_addr_ret);
	printf("offset_ret %d ", g.offset_ret);
	hex(g.offset_buf, g.offset_ret > 0 ? g.offset_ret : 0);
	printf("\n");
	return 0;
}
