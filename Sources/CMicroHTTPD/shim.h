#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/select.h>
#include <microhttpd.h>

/// The options the server sets; MHD_start_daemon is variadic, which Swift cannot call.
struct cmhd_options {
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int connection_timeout_seconds;
    size_t connection_memory_limit;
    size_t thread_stack_size;
};

static inline struct MHD_Daemon *cmhd_start(unsigned int flags, const struct sockaddr *address,
                                            MHD_AccessHandlerCallback handler,
                                            MHD_RequestCompletedCallback completed, void *context,
                                            struct cmhd_options options) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_CONNECTION_LIMIT, options.connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, options.per_ip_connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, options.connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, options.connection_memory_limit,
                            MHD_OPTION_THREAD_STACK_SIZE, options.thread_stack_size,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (MHD_get_daemon_info is variadic).
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// The peer's address (MHD_get_connection_info is variadic).
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}
#endif
