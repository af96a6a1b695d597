#include <sqlite3.h>

// Swift cannot call C variadic functions; these wrap the few WebRecord needs.

static inline int webrecord_sqlite3_config_log(void (*callback)(void *, int, const char *), void *context) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}

// Turns off SQLite's memory statistics, which take a process-wide mutex on every allocation
// SQLite makes. Only takes effect before SQLite is initialized (SQLITE_MISUSE after).
static inline int webrecord_sqlite3_config_no_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static inline int webrecord_sqlite3_db_config_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type webrecord_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}
