// prelude.h — force-included into every file of a PPCA bot (g++ -include
// adapters/ppca/prelude.h, README.md "Building").  It declares the whole original API except
// Player before the student's first line, under the original headers' include guards, so
// that original client.h, common.h and query.h lying next to the student's .cpp (found first
// by #include "...") are skipped: no redefinitions, and no Boost.  player.h is not included:
// the student's own player.h (with its added members), or the adapter's, is found normally.
#ifndef PPCA_PRELUDE_H
#define PPCA_PRELUDE_H

#include "client.h"
#include "common.h"
#include "pot.h"
#include "query.h"

#endif
