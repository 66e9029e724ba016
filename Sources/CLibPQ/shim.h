#ifndef WB_CLIBPQ_SHIM_H
#define WB_CLIBPQ_SHIM_H
/* PostgreSQL's C client (libpq): the hub's connection (SessionHub). */
#include <libpq-fe.h>
#endif
