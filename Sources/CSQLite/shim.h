#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic; these are the configurations the store uses.
static inline int csqlite_config_multithread(void) { return sqlite3_config(SQLITE_CONFIG_MULTITHREAD); }
/// Memory statistics off: with them on, every allocation SQLite makes takes one global mutex.
static inline int csqlite_config_no_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
