/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcap_dump - prints every packet of a capture through libpcap (an
 * independent reader of the files lnetcap writes): link type once, then per
 * packet "caplen len sec.nsec hex-bytes".  Used by the CLI tests to check
 * that records survive a rewrite byte for byte.
 */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fprintf(stderr, "pcap_dump: %s\n", err);
		return 1;
	}
	printf("linktype %d\n", pcap_datalink(p));
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		printf("%u %u %ld.%09ld ", h->caplen, h->len, (long)h->ts.tv_sec, (long)h->ts.tv_usec);
		for (bpf_u_int32 i = 0; i < h->caplen; i++)
			printf("%02x", d[i]);
		putchar('\n');
	}
	if (rc != PCAP_ERROR_BREAK) {
		fprintf(stderr, "pcap_dump: %s\n", pcap_geterr(p));
		return 1;
	}
	pcap_close(p);
	return 0;
}
