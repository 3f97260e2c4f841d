/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * getnameinfo_stub.c - a system resolver double for the --resolve-nids
 * test: LD_PRELOADed into lnetcap, it replaces getnameinfo() so the test
 * needs no DNS and no /etc/hosts entry.
 *   STUB_HOSTS  "ADDRESS NAME" lines: the names it knows (others: EAI_NONAME)
 *   STUB_HANG   an address whose look-up never answers (a dead DNS server)
 *   STUB_LOG    a file that gets one line per question: the address asked
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host, socklen_t hostlen, char *serv,
		socklen_t servlen, int flags)
{
	char addr[INET6_ADDRSTRLEN] = "", line[512], key[256], name[256];
	const char *hosts = getenv("STUB_HOSTS"), *hang = getenv("STUB_HANG"), *log = getenv("STUB_LOG");
	FILE *f;

	(void)salen;
	(void)serv;
	(void)servlen;
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, addr, sizeof(addr));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, addr, sizeof(addr));
	if (log && (f = fopen(log, "a"))) {
		fprintf(f, "%s %s\n", addr, (flags & NI_NAMEREQD) ? "NI_NAMEREQD" : "-");
		fclose(f);
	}
	if (hang && strcmp(hang, addr) == 0)
		for (;;)
			pause();
	if (hosts && (f = fopen(hosts, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%255s %255s", key, name) == 2 && strcmp(key, addr) == 0 &&
			    strlen(name) < hostlen) {
				strcpy(host, name);
				fclose(f);
				return 0;
			}
		fclose(f);
	}
	return EAI_NONAME;
}
