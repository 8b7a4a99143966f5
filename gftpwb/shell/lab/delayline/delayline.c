/*
 * delayline.c: the lab's WAN link, a user-space delay line between two network namespaces.
 *
 * The kernel here has no netem, so a round-trip time is made in user space: each of the two
 * namespaces has a TUN device routed to the other's address, and this one process reads every
 * packet one side's kernel sends into its TUN device and writes it into the other side's TUN device
 * after the one-way delay. Both kernels' own TCP then sees the delay, the loss and (through tbf on
 * the TUN devices, which the lab sets) the rate of a long path.
 *
 * One thread per direction: a packet is read straight into a FIFO byte ring and written out when
 * it is due (a fixed delay keeps the order; jitter never reorders: a packet is never due before the
 * one ahead of it). Timeouts have 1 ns timer slack, so a due packet leaves on time, and with no
 * delay a packet is written as soon as it is read. The threads run at real-time priority
 * (SCHED_FIFO 1, unless --no-realtime or not permitted): the line stands in for a network, whose
 * packets the kernel handles before any program, so the machine's load must not delay them. It
 * sleeps whenever no packet is due, and the kernel's real-time throttling leaves every CPU 5 % to
 * others even if it did not. What the line drops it counts, by cause:
 *   loss      the asked random loss (independent drops with probability p, seeded)
 *   full      its own ring was full (more bytes in flight than --buffer allows)
 *   write     the other TUN device refused the packet
 * Drops before the line (the TUN device's queue when the line fell behind, the shaper's queue)
 * are the kernel's counters, which the lab reads from the devices.
 *
 * Settings come from a key=value file (delay_us, jitter_us, loss, seed, buffer_bytes), read at
 * start and again on SIGHUP, so a running link changes without dropping what is in flight. The
 * counters go to a JSON file (written atomically) at start, every second, on SIGUSR1 and at exit.
 *
 * Usage: gftpwb-delayline --a NETNS:DEV --b NETNS:DEV --settings FILE --stats FILE [--offload]
 *                         [--no-realtime]
 *        gftpwb-delayline --version
 * NETNS is a name under /run/netns (ip netns) or a path; DEV a TUN device that exists there
 * (ip tuntap add DEV mode tun). Build (the lab does it, keyed by this file's hash):
 *   cc -O2 -Wall -Wextra -pthread -o gftpwb-delayline delayline.c
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define VERSION "gftpwb-delayline 1 tun"
#define MAX_PACKET 65600          /* the largest IP packet a TUN device hands over, with room */
#define SLOTS (1u << 18)          /* packets held per direction at most */
#define DEFAULT_BUFFER (256u << 20)
#define READ_BATCH 64

struct settings {
    _Atomic uint64_t delay_ns;
    _Atomic uint64_t jitter_ns;
    _Atomic uint64_t loss_threshold; /* drop when a 64-bit random number is below this */
    _Atomic uint64_t generation;     /* bumped on every reload, so a thread re-seeds */
    uint64_t seed;
    double loss;
    size_t buffer_bytes;
};

struct counters {
    _Atomic uint64_t packets, bytes, delivered, delivered_bytes;
    _Atomic uint64_t dropped_loss, dropped_full, dropped_write;
    _Atomic uint64_t held_bytes, held_max_bytes;
    _Atomic uint64_t late_ns_sum, late_ns_max; /* how late, after its due time, a packet left */
};

struct slot {
    uint64_t due;
    uint32_t offset, length;
};

struct direction {
    const char *name;
    int in, out;
    unsigned char *ring;
    size_t ring_bytes, head_off, tail_off; /* bytes [head, tail) are in flight, wrapping */
    struct slot *slots;
    uint32_t first, count;
    uint64_t last_due, rng, generation;
    struct counters c;
    pthread_t thread;
};

static struct settings cfg;
static struct direction dirs[2];
static volatile sig_atomic_t want_reload, want_stats, want_stop;
static const char *settings_path, *stats_path;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t next_random(uint64_t *state) { /* xorshift64*: fast and good enough for drops */
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static void die(const char *what) {
    fprintf(stderr, "gftpwb-delayline: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void load_settings(int initial) {
    FILE *f = fopen(settings_path, "r");
    if (!f) {
        if (initial) die(settings_path);
        fprintf(stderr, "gftpwb-delayline: cannot reread %s (%s); settings unchanged\n", settings_path,
                strerror(errno));
        return;
    }
    char line[256];
    double delay_us = 0, jitter_us = 0, loss = 0;
    uint64_t seed = 1;
    unsigned long long buffer = DEFAULT_BUFFER;
    while (fgets(line, sizeof line, f)) {
        char key[64];
        char value[128];
        if (sscanf(line, " %63[a-z_] = %127s", key, value) != 2) continue;
        if (!strcmp(key, "delay_us")) delay_us = strtod(value, NULL);
        else if (!strcmp(key, "jitter_us")) jitter_us = strtod(value, NULL);
        else if (!strcmp(key, "loss")) loss = strtod(value, NULL);
        else if (!strcmp(key, "seed")) seed = strtoull(value, NULL, 10);
        else if (!strcmp(key, "buffer_bytes")) buffer = strtoull(value, NULL, 10);
    }
    fclose(f);
    if (loss < 0) loss = 0;
    if (loss > 1) loss = 1;
    cfg.loss = loss;
    cfg.seed = seed ? seed : 1;
    if (initial) cfg.buffer_bytes = buffer < 4 * MAX_PACKET ? 4 * MAX_PACKET : buffer;
    atomic_store(&cfg.delay_ns, (uint64_t)(delay_us * 1000.0));
    atomic_store(&cfg.jitter_ns, (uint64_t)(jitter_us * 1000.0));
    atomic_store(&cfg.loss_threshold, loss >= 1 ? UINT64_MAX : (uint64_t)(loss * 18446744073709551616.0));
    atomic_fetch_add(&cfg.generation, 1);
}

static int realtime = 1; /* SCHED_FIFO 1 for the threads; 0 after --no-realtime or when refused */
static int offload; /* --offload: segmentation offload, packets of up to 64 KiB with a virtio-net header */

static int open_tun(const char *spec) {
    char netns[512];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || strlen(colon + 1) >= IFNAMSIZ) {
        fprintf(stderr, "gftpwb-delayline: bad end %s (want NETNS:DEV)\n", spec);
        exit(2);
    }
    size_t n = (size_t)(colon - spec);
    if (spec[0] == '/') snprintf(netns, sizeof netns, "%.*s", (int)n, spec);
    else snprintf(netns, sizeof netns, "/run/netns/%.*s", (int)n, spec);
    int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int target = open(netns, O_RDONLY | O_CLOEXEC);
    if (home < 0 || target < 0) die(netns);
    if (setns(target, CLONE_NEWNET) < 0) die("setns");
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) die("/dev/net/tun");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI | (offload ? IFF_VNET_HDR : 0);
    memcpy(ifr.ifr_name, colon + 1, strlen(colon + 1));
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) die(spec);
    /* With offload the kernel hands over TCP segments as one packet of up to 64 KiB and takes them
       the same way on the other side (the header says how to segment; checksums stay partial), so
       the line moves a fraction of the packets at the same rate, as a veth pair does. */
    /* A persistent device keeps the offloads of its last user: set them either way. */
    if (ioctl(fd, TUNSETOFFLOAD, offload ? TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 : 0) < 0) die("TUNSETOFFLOAD");
    if (setns(home, CLONE_NEWNET) < 0) die("setns back");
    close(home);
    close(target);
    return fd;
}

static void max_update(_Atomic uint64_t *slot, uint64_t value) {
    uint64_t seen = atomic_load_explicit(slot, memory_order_relaxed);
    while (value > seen && !atomic_compare_exchange_weak(slot, &seen, value)) {
    }
}

static void deliver(struct direction *d, const unsigned char *data, size_t length, uint64_t due, uint64_t now) {
    if (write(d->out, data, length) < 0) {
        atomic_fetch_add_explicit(&d->c.dropped_write, 1, memory_order_relaxed);
        return;
    }
    uint64_t late = now > due ? now - due : 0;
    atomic_fetch_add_explicit(&d->c.delivered, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&d->c.delivered_bytes, length, memory_order_relaxed);
    atomic_fetch_add_explicit(&d->c.late_ns_sum, late, memory_order_relaxed);
    max_update(&d->c.late_ns_max, late);
}

/* Room for one more packet of up to MAX_PACKET bytes at the ring's tail; NULL when full. */
static unsigned char *reserve(struct direction *d, size_t held) {
    if (d->count == SLOTS || held + MAX_PACKET > cfg.buffer_bytes) return NULL;
    if (d->count == 0) d->head_off = d->tail_off = 0;
    if (d->tail_off >= d->head_off) { /* not wrapped: room at the end, else at the start */
        if (d->ring_bytes - d->tail_off >= MAX_PACKET) return d->ring + d->tail_off;
        if (d->head_off >= MAX_PACKET) { /* wrap: the tail's remnant stays unused */
            d->tail_off = 0;
            return d->ring;
        }
        return NULL;
    }
    return d->head_off - d->tail_off >= MAX_PACKET ? d->ring + d->tail_off : NULL;
}

static void *run_direction(void *arg) {
    struct direction *d = arg;
    prctl(PR_SET_TIMERSLACK, 1UL);
    uint64_t held = 0;
    for (;;) {
        uint64_t generation = atomic_load(&cfg.generation);
        if (generation != d->generation) {
            d->generation = generation;
            d->rng = cfg.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)(d - dirs) + 1;
        }
        uint64_t now = now_ns();
        while (d->count) { /* send what is due */
            struct slot *s = &d->slots[d->first];
            if (s->due > now) break;
            deliver(d, d->ring + s->offset, s->length, s->due, now);
            held -= s->length;
            d->first = (d->first + 1) % SLOTS;
            d->count--;
            d->head_off = d->count ? d->slots[d->first].offset : 0; /* the first byte still held */
            now = now_ns();
        }
        atomic_store_explicit(&d->c.held_bytes, held, memory_order_relaxed);
        if (want_stop) return NULL;
        struct pollfd p = {.fd = d->in, .events = POLLIN};
        struct timespec wait = {0, 100000000}; /* wake at least every 100 ms to see a stop */
        if (d->count) {
            uint64_t due = d->slots[d->first].due;
            uint64_t left = due > now ? due - now : 0;
            if (left < 100000000u) wait = (struct timespec){0, (long)left};
        }
        int ready = ppoll(&p, 1, &wait, NULL);
        if (ready <= 0) continue;
        for (int i = 0; i < READ_BATCH; i++) {
            unsigned char *at = reserve(d, held);
            unsigned char spill[MAX_PACKET];
            ssize_t got = read(d->in, at ? at : spill, MAX_PACKET);
            if (got <= 0) break;
            now = now_ns();
            atomic_fetch_add_explicit(&d->c.packets, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&d->c.bytes, (uint64_t)got, memory_order_relaxed);
            uint64_t threshold = atomic_load_explicit(&cfg.loss_threshold, memory_order_relaxed);
            if (threshold && next_random(&d->rng) < threshold) {
                atomic_fetch_add_explicit(&d->c.dropped_loss, 1, memory_order_relaxed);
                continue;
            }
            if (!at) {
                atomic_fetch_add_explicit(&d->c.dropped_full, 1, memory_order_relaxed);
                continue;
            }
            uint64_t due = now + atomic_load_explicit(&cfg.delay_ns, memory_order_relaxed);
            uint64_t jitter = atomic_load_explicit(&cfg.jitter_ns, memory_order_relaxed);
            if (jitter) { /* uniform in [-jitter, +jitter], never before now */
                uint64_t spread = next_random(&d->rng) % (2 * jitter + 1);
                due = due + spread >= jitter ? due + spread - jitter : now;
                if (due < now) due = now;
            }
            if (due < d->last_due) due = d->last_due; /* never reorder */
            d->last_due = due;
            if (d->count == 0 && due <= now) { /* nothing waits ahead of it: out at once */
                deliver(d, at, (size_t)got, due, now);
                continue;
            }
            struct slot *s = &d->slots[(d->first + d->count) % SLOTS];
            s->due = due;
            s->offset = (uint32_t)(at - d->ring);
            s->length = (uint32_t)got;
            d->tail_off = s->offset + (size_t)got;
            d->tail_off = (d->tail_off + 63) & ~(size_t)63;
            if (d->tail_off > d->ring_bytes) d->tail_off = d->ring_bytes;
            d->count++;
            held += (uint64_t)got;
            max_update(&d->c.held_max_bytes, held);
        }
    }
}

static void write_counters(FILE *f, const struct direction *d) {
    uint64_t delivered = atomic_load(&d->c.delivered);
    uint64_t late_sum = atomic_load(&d->c.late_ns_sum);
    fprintf(f,
            "{\"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"delivered\": %" PRIu64
            ", \"delivered_bytes\": %" PRIu64 ", \"dropped\": {\"loss\": %" PRIu64 ", \"full\": %" PRIu64
            ", \"write\": %" PRIu64 "}, \"held_bytes\": %" PRIu64 ", \"held_max_bytes\": %" PRIu64
            ", \"late_us_mean\": %.3f, \"late_us_max\": %.3f}",
            atomic_load(&d->c.packets), atomic_load(&d->c.bytes), delivered, atomic_load(&d->c.delivered_bytes),
            atomic_load(&d->c.dropped_loss), atomic_load(&d->c.dropped_full), atomic_load(&d->c.dropped_write),
            atomic_load(&d->c.held_bytes), atomic_load(&d->c.held_max_bytes),
            delivered ? (double)late_sum / (double)delivered / 1000.0 : 0.0,
            (double)atomic_load(&d->c.late_ns_max) / 1000.0);
}

static void write_stats(int running) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", stats_path);
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fprintf(f, "{\"version\": 1, \"pid\": %d, \"running\": %s, \"realtime\": %s, \"offload\": %s, "
            "\"settings\": {\"delay_us\": %.3f, \"jitter_us\": %.3f, "
            "\"loss\": %.9g, \"seed\": %" PRIu64 ", \"buffer_bytes\": %zu},\n \"a_to_b\": ",
            (int)getpid(), running ? "true" : "false", realtime ? "true" : "false", offload ? "true" : "false", (double)atomic_load(&cfg.delay_ns) / 1000.0,
            (double)atomic_load(&cfg.jitter_ns) / 1000.0, cfg.loss, cfg.seed, cfg.buffer_bytes);
    write_counters(f, &dirs[0]);
    fprintf(f, ",\n \"b_to_a\": ");
    write_counters(f, &dirs[1]);
    fprintf(f, "}\n");
    if (fclose(f) == 0) rename(tmp, stats_path);
}

static void on_signal(int sig) {
    if (sig == SIGHUP) want_reload = 1;
    else if (sig == SIGUSR1) want_stats = 1;
    else want_stop = 1;
}

static void usage(void) {
    fprintf(stderr, "usage: gftpwb-delayline --a NETNS:DEV --b NETNS:DEV --settings FILE --stats FILE [--offload] "
                    "[--no-realtime]\n"
                    "       gftpwb-delayline --version\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *a = NULL, *b = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--version")) {
            printf("%s\n", VERSION);
            return 0;
        }
        if (!strcmp(argv[i], "--offload")) {
            offload = 1;
            continue;
        }
        if (!strcmp(argv[i], "--no-realtime")) {
            realtime = 0;
            continue;
        }
        if (i + 1 >= argc) usage();
        if (!strcmp(argv[i], "--a")) a = argv[++i];
        else if (!strcmp(argv[i], "--b")) b = argv[++i];
        else if (!strcmp(argv[i], "--settings")) settings_path = argv[++i];
        else if (!strcmp(argv[i], "--stats")) stats_path = argv[++i];
        else usage();
    }
    if (!a || !b || !settings_path || !stats_path) usage();
    load_settings(1);
    int fa = open_tun(a), fb = open_tun(b);
    dirs[0] = (struct direction){.name = "a_to_b", .in = fa, .out = fb};
    dirs[1] = (struct direction){.name = "b_to_a", .in = fb, .out = fa};
    for (int i = 0; i < 2; i++) {
        struct direction *d = &dirs[i];
        d->ring_bytes = cfg.buffer_bytes + 2 * MAX_PACKET;
        d->ring = mmap(NULL, d->ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        d->slots = calloc(SLOTS, sizeof *d->slots);
        if (d->ring == MAP_FAILED || !d->slots) die("memory for the line");
    }
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGUSR1);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    pthread_sigmask(SIG_BLOCK, &mask, NULL); /* the threads never see a signal; main takes them */
    if (realtime) { /* the threads inherit it; main, which only writes counters, goes back to normal */
        struct sched_param rt = {.sched_priority = 1};
        if (sched_setscheduler(0, SCHED_FIFO, &rt) < 0) {
            fprintf(stderr, "gftpwb-delayline: no real-time priority (%s); packets may leave late under load\n",
                    strerror(errno));
            realtime = 0;
        }
    }
    for (int i = 0; i < 2; i++)
        if ((errno = pthread_create(&dirs[i].thread, NULL, run_direction, &dirs[i])) != 0) die("pthread_create");
    if (realtime) {
        struct sched_param normal = {.sched_priority = 0};
        sched_setscheduler(0, SCHED_OTHER, &normal);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    pthread_sigmask(SIG_UNBLOCK, &mask, NULL);
    write_stats(1);
    while (!want_stop) {
        struct timespec second = {1, 0};
        nanosleep(&second, NULL); /* a signal cuts it short */
        if (want_reload) {
            want_reload = 0;
            load_settings(0);
        }
        want_stats = 0;
        write_stats(1);
    }
    for (int i = 0; i < 2; i++) pthread_join(dirs[i].thread, NULL);
    write_stats(0);
    return 0;
}
