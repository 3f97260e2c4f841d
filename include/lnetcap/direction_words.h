/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * direction_words.h - the short word each record direction prints as, the
 * same in lnetcap's text lines, its -p %c code (lnetdump's SEND/RECV) and
 * the plugin's Info column: X(DIRECTION, "WORD") over enum lnetcap_direction.
 */
#ifndef LNETCAP_DIRECTION_WORDS_H
#define LNETCAP_DIRECTION_WORDS_H

#include "record.h"

#define LNETCAP_DIR_WORD_LIST(X)                                               \
	X(SEND, "SEND")                                                        \
	X(RECV, "RECV")                                                        \
	X(FORWARD, "FWD")                                                      \
	X(DROP, "DROP")                                                        \
	X(WIRE, "WIRE")

/* The word of a direction, or NULL for one without (UNKNOWN, a newer one):
 * each caller says what it prints then. */
static inline const char *lnetcap_direction_word(unsigned int dir)
{
	switch (dir) {
#define LNETCAP_X_(name, word)                                                 \
	case LNETCAP_DIR_##name:                                               \
		return word;
		LNETCAP_DIR_WORD_LIST(LNETCAP_X_)
#undef LNETCAP_X_
	default:
		return 0;
	}
}

#endif /* LNETCAP_DIRECTION_WORDS_H */
