/* webhook_receiver: the benchmark's stand-in for a customer's webhook endpoint (bench/run.sh,
 * step 5c, issue 37). In production the receiver runs on the customer's machines; on the
 * benchmark's host it shares the cores the service signs on, so it is kept as cheap as a
 * real HTTP/1.1 server can be: libmicrohttpd, one internal epoll thread, keep-alive.
 *
 *   POST any path   reads the body, answers 204 No Content, counts the request
 *   GET  /count     answers the number of POSTs answered so far (decimal, text/plain)
 *
 * usage: webhook_receiver PORT   (bound to 127.0.0.1; runs until SIGTERM or SIGINT)
 *
 * Built by bench/run.sh with: gcc -O2 -Wall -o webhook_receiver webhook_receiver.c -lmicrohttpd
 */
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long posts;          /* only the daemon's one thread touches it */
static struct MHD_Response *no_content;   /* shared by every answer (persistent, empty) */
static volatile sig_atomic_t stopping;

static enum MHD_Result handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size, void **state) {
    (void)cls; (void)version; (void)upload_data;
    if (strcmp(method, "POST") == 0) {
        if (*state == NULL) {             /* the head: the body (if any) follows in later calls */
            *state = (void *)1;
            return MHD_YES;
        }
        if (*upload_data_size > 0) {      /* a piece of the body: read and dropped */
            *upload_data_size = 0;
            return MHD_YES;
        }
        posts++;
        return MHD_queue_response(connection, MHD_HTTP_NO_CONTENT, no_content);
    }
    if (strcmp(method, "GET") == 0 && strcmp(url, "/count") == 0) {
        char text[32];
        int length = snprintf(text, sizeof text, "%llu\n", posts);
        struct MHD_Response *count = MHD_create_response_from_buffer((size_t)length, text, MHD_RESPMEM_MUST_COPY);
        enum MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, count);
        MHD_destroy_response(count);
        return queued;
    }
    return MHD_NO;                        /* anything else: the connection is closed */
}

static void stop(int signal) { (void)signal; stopping = 1; }

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PORT\n", argv[0]);
        return 2;
    }
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])) };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    no_content = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    struct MHD_Daemon *daemon = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                                                 handler, NULL, MHD_OPTION_SOCK_ADDR, &address,
                                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "webhook_receiver: could not listen on 127.0.0.1:%s\n", argv[1]);
        return 1;
    }
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    while (!stopping) pause();
    MHD_stop_daemon(daemon);
    MHD_destroy_response(no_content);
    return 0;
}
