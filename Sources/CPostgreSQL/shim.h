#ifndef CPOSTGRESQL_SHIM_H
#define CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
#include <poll.h>
#endif
