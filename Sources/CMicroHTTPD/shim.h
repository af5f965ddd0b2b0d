#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/// MHD_OPTION_URI_LOG_CALLBACK's function type (the header gives it only in prose).
typedef void *(*cmhd_uri_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon with `options` and the server's connection hooks, each called with `context`.
static inline struct MHD_Daemon *cmhd_start_server(unsigned int flags, const struct sockaddr *address,
                                                   MHD_AccessHandlerCallback handler,
                                                   MHD_RequestCompletedCallback completed,
                                                   MHD_NotifyConnectionCallback notify_connection,
                                                   cmhd_uri_callback uri_callback, void *context,
                                                   struct cmhd_options options) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_callback, context,
                            MHD_OPTION_CONNECTION_LIMIT, options.connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, options.per_ip_connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, options.connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, options.connection_memory_limit,
                            MHD_OPTION_THREAD_STACK_SIZE, options.thread_stack_size,
                            MHD_OPTION_END);
}

/// cmhd_start_server without the connection hooks: a NULL hook is one libmicrohttpd does not call.
static inline struct MHD_Daemon *cmhd_start(unsigned int flags, const struct sockaddr *address,
                                            MHD_AccessHandlerCallback handler,
                                            MHD_RequestCompletedCallback completed, void *context,
                                            struct cmhd_options options) {
    return cmhd_start_server(flags, address, handler, completed, NULL, NULL, context, options);
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

/// The connection's socket, or -1.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// What the MHD_OPTION_NOTIFY_CONNECTION callback stored for the connection when it opened.
static inline void *cmhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// Empties the query of the URI that MHD_OPTION_URI_LOG_CALLBACK received, so that
/// libmicrohttpd does not parse it: 0.9.75 stores each query argument in the connection's
/// fixed memory pool and, when the pool runs out, drops the connection without an answer.
/// The URI lies in the connection's own writable read buffer (const only in the callback's
/// signature), and libmicrohttpd parses the arguments after the callback returns.
static inline void cmhd_drop_query(const char *uri) {
    char *query = strchr((char *) uri, '?');
    if (query != NULL && query[1] != '\0') query[1] = '\0';
}
#endif
