/*
 * gfapi_worker.c: gftpwb's small-file worker (replaces parallel-libgfapi's gfapi_perf_test).
 *
 * One process runs T threads against a GlusterFS volume through libgfapi (all threads share one
 * glfs_t, so glfs_init's seconds are paid once per process) or against any POSIX directory (a FUSE
 * mount, XFS, tmpfs), so the same test compares libgfapi with FUSE or a local file system.
 *
 * Every thread prepares first (connection, directories, buffers, offsets) and then waits for ONE
 * start command on stdin; measurement starts at that signal, optionally at an absolute wall-clock
 * time so that threads of many processes on many hosts start together. While running, a reporter
 * thread writes a compact line protocol on stdout about every --interval-ms (counters and sparse
 * latency-histogram deltas); no per-operation text is ever written. The protocol is documented in
 * gftpwb/drivers/gfapi_protocol.py, which parses it.
 *
 * I/O tracing (--io-trace FILE, gftpwb's `trace: io`): every open, read, write, fsync, close and unlink
 * (or one in --io-trace-every N per thread) becomes a 16-byte binary event in a per-thread chunk in
 * memory; full chunks go to a writer thread, which alone writes the file (each chunk one block), so the
 * measuring threads never wait for a disk. The format (version 2) is gftpwb/core/trace/iofmt.py's.
 * --io-trace-level run opens the file with I/O events off; `trace io` / `trace run` on stdin (or
 * SIGUSR2 / SIGUSR1) switch them on and off while the worker runs, each switch an event of its own.
 *
 * Build (the controller does this on each host, keyed by this file's hash):
 *   cc -O2 -Wall -Wextra -pthread -DGFTPWB_WITH_GFAPI -o gfapi-worker gfapi_worker.c -lgfapi
 *   cc -O2 -Wall -Wextra -pthread -o gfapi-worker gfapi_worker.c      (POSIX mode only)
 */

#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifdef GFTPWB_WITH_GFAPI
#include <glusterfs/api/glfs.h>
#define CAPABILITY "gfapi"
#else
#define CAPABILITY "posix"
#endif

#define PROTOCOL_VERSION 1
#define ALIGNMENT 4096 /* O_DIRECT buffers: page-aligned (parallel-libgfapi passed 12 as bytes) */

/* Exit codes, also documented in gfapi_protocol.py. */
#define EXIT_ALL_OK 0
#define EXIT_SOME_FAILED 1
#define EXIT_USAGE 2
#define EXIT_PREPARE 3
#define EXIT_NO_START 4
#define EXIT_STOPPED 5

/* ---- latency histogram: log-linear buckets, 16 per power of two (<= 6.25 % wide) ---------- */

#define SUB_BITS 4
#define SUB_COUNT (1u << SUB_BITS)
#define MAX_EXP 40 /* values of 2^41 ns (~37 min) and more land in the last bucket */
#define NBUCKETS (SUB_COUNT + (MAX_EXP - SUB_BITS + 1) * SUB_COUNT)

static unsigned bucket_of(uint64_t ns)
{
    if (ns < SUB_COUNT)
        return (unsigned)ns;
    unsigned e = 63u - (unsigned)__builtin_clzll(ns);
    if (e > MAX_EXP)
        return NBUCKETS - 1;
    unsigned m = (unsigned)(ns >> (e - SUB_BITS)) & (SUB_COUNT - 1);
    return SUB_COUNT + (e - SUB_BITS) * SUB_COUNT + m;
}

enum op { OP_OPEN, OP_READ, OP_WRITE, OP_FSYNC, OP_CLOSE, OP_UNLINK, OP_FILE, OP_COUNT };
static const char *const OP_NAMES[OP_COUNT] = {"open", "read", "write", "fsync", "close", "unlink", "file"};

typedef struct {
    _Atomic uint64_t count, sum_ns, max_ns;
    _Atomic uint64_t buckets[NBUCKETS];
} op_hist_t;

/* ---- options ----------------------------------------------------------------------------- */

enum workload { WL_SEQ_WR, WL_SEQ_RD, WL_RND_WR, WL_RND_RD, WL_UNLINK, WL_RW_MIX };
static const char *const WORKLOAD_NAMES[] = {"seq-wr", "seq-rd", "rnd-wr", "rnd-rd", "unlink", "rw-mix"};

typedef struct {
    int use_gfapi;
    const char *volume, *server, *transport, *dir, *log_file;
    int port, threads, thread_base, trace_level, interval_ms, direct, fsync_on_close, read_pct;
    enum workload workload;
    uint64_t files, file_size, record_size, files_per_dir, dirs_per_dir, io_requests, seed;
    const char *io_trace;
    uint64_t io_trace_every;
    int io_trace_level;
} options_t;

static options_t opt = {
    .use_gfapi = 0, .volume = NULL, .server = NULL, .transport = "tcp", .dir = NULL, .log_file = "/dev/stderr",
    .port = 24007, .threads = 1, .thread_base = 0, .trace_level = 4, .interval_ms = 250, .direct = 0,
    .fsync_on_close = 0, .read_pct = 50, .workload = WL_SEQ_WR, .files = 100, .file_size = 1 << 20,
    .record_size = 64 << 10, .files_per_dir = 1000, .dirs_per_dir = 1000, .io_requests = 0, .seed = 1,
    .io_trace = NULL, .io_trace_every = 1, .io_trace_level = 2 /* TRACE_IO */,
};

/* ---- output: one writer at a time, whole lines ----------------------------------------------- */

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&out_lock);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

/* Messages end at the line: keep them on one line whatever a path or strerror contains. */
static void one_line(char *text)
{
    for (char *p = text; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

static void fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fatal(int code, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    one_line(text);
    emit("fatal %d %s\n", code, text);
    _exit(code);
}

/* ---- clocks ---------------------------------------------------------------------------------- */

static uint64_t now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- file system abstraction: libgfapi or POSIX -------------------------------------------- */

#ifdef GFTPWB_WITH_GFAPI
static glfs_t *fs;
#endif

typedef struct {
    int fd;
#ifdef GFTPWB_WITH_GFAPI
    glfs_fd_t *gfd;
#endif
} file_t;

static int fs_open(file_t *f, const char *path, int flags, mode_t mode)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi) {
        f->gfd = (flags & O_CREAT) ? glfs_creat(fs, path, flags, mode) : glfs_open(fs, path, flags);
        return f->gfd ? 0 : -1;
    }
#endif
    f->fd = open(path, flags, mode);
    return f->fd >= 0 ? 0 : -1;
}

static ssize_t fs_pread(file_t *f, void *buf, size_t n, off_t off)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi)
        return glfs_pread(f->gfd, buf, n, off, 0, NULL);
#endif
    return pread(f->fd, buf, n, off);
}

static ssize_t fs_pwrite(file_t *f, const void *buf, size_t n, off_t off)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi)
        return glfs_pwrite(f->gfd, buf, n, off, 0, NULL, NULL);
#endif
    return pwrite(f->fd, buf, n, off);
}

static int fs_fsync(file_t *f)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi)
        return glfs_fsync(f->gfd, NULL, NULL);
#endif
    return fsync(f->fd);
}

static int fs_close(file_t *f)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi)
        return glfs_close(f->gfd);
#endif
    return close(f->fd);
}

static int fs_unlink(const char *path)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi)
        return glfs_unlink(fs, path);
#endif
    return unlink(path);
}

static int fs_mkdir(const char *path)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi)
        return glfs_mkdir(fs, path, 0755);
#endif
    return mkdir(path, 0755);
}

static int fs_stat(const char *path, struct stat *st)
{
#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi)
        return glfs_stat(fs, path, st);
#endif
    return stat(path, st);
}

/* ---- I/O trace: per-thread chunks of 16-byte events, one writer thread ----------------------------- */

#define TRACE_MAGIC "GFTPWBIO"
#define TRACE_VERSION 2
/* 256 KiB of events per chunk: a full chunk wakes the writer thread (a futex wake, a context switch
 * and one write), so bigger chunks mean fewer of those on the measured CPUs; a crash loses at most
 * one chunk per thread. */
#define TRACE_CHUNK_SLOTS 16384
#define TRACE_BLOCK_MARKER 0x4B4C4247u /* "GBLK" little endian: the start of a block */
#define TRACE_OP_LEVEL 15u              /* the op field's value of a level switch */
#define TRACE_BYTES_MAX ((1u << 26) - 1)
#define TRACE_FLAG_ERROR (1u << 26)
#define TRACE_FLAG_WIDE (1u << 27)
#define TRACE_OP_SHIFT 28
enum trace_level { TRACE_OFF, TRACE_RUN, TRACE_IO };

/* An event is one slot: start (monotonic ns), duration ns, and a word holding op (4 bits), the wide
 * and error flags and bytes (26 bits). The cost of an event in a real run is the cache lines the
 * measuring thread stores (the kernel's file system work keeps the chunk's lines cold), so an event is
 * as small as it can be without losing anything: one whose duration (over ~4.29 s) or bytes (64 MiB or
 * more) do not fit is "wide" and takes the next slot too, holding both in full. */
typedef union {
    struct {
        uint64_t start_ns;
        uint32_t duration_ns, word;
    } ev;
    struct {
        uint64_t duration_ns, bytes;
    } wide; /* the second slot of a wide event */
} trace_slot_t;
_Static_assert(sizeof(trace_slot_t) == 16, "an I/O trace event is 16 bytes");

/* What precedes a chunk's slots in the file: one block per chunk, of one thread's events. */
typedef struct {
    uint32_t marker, thread, slots, events;
} trace_block_t;

typedef struct trace_chunk {
    struct trace_chunk *next;
    trace_block_t block;
    trace_slot_t slot[TRACE_CHUNK_SLOTS];
    uint32_t wide; /* wide events in this chunk (events = slots - wide) */
} trace_chunk_t;
_Static_assert(offsetof(trace_chunk_t, slot) == offsetof(trace_chunk_t, block) + sizeof(trace_block_t),
               "a chunk's block header and slots are written as one piece");

static int trace_fd = -1;
static _Atomic int trace_level = TRACE_OFF;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t trace_cond = PTHREAD_COND_INITIALIZER;
static trace_chunk_t *trace_full_head, *trace_full_tail, *trace_free;
static int trace_closing;
static pthread_t trace_writer;
static uint64_t trace_write_errors;

static trace_chunk_t *trace_chunk_new(void)
{
    trace_chunk_t *c = NULL;
    pthread_mutex_lock(&trace_lock);
    if (trace_free) {
        c = trace_free;
        trace_free = c->next;
    }
    pthread_mutex_unlock(&trace_lock);
    if (!c)
        c = malloc(sizeof *c);
    if (c) {
        c->next = NULL;
        c->wide = 0;
        c->block = (trace_block_t){.marker = TRACE_BLOCK_MARKER, .thread = 0, .slots = 0, .events = 0};
    }
    return c;
}

/* A chunk whose block header is filled in (slots, events) goes to the writer; an empty one to the free
 * list. */
static void trace_submit(trace_chunk_t *c)
{
    if (!c || !c->block.slots) {
        if (c) {
            pthread_mutex_lock(&trace_lock);
            c->next = trace_free;
            trace_free = c;
            pthread_mutex_unlock(&trace_lock);
        }
        return;
    }
    c->next = NULL;
    pthread_mutex_lock(&trace_lock);
    if (trace_full_tail)
        trace_full_tail->next = c;
    else
        trace_full_head = c;
    trace_full_tail = c;
    pthread_cond_signal(&trace_cond);
    pthread_mutex_unlock(&trace_lock);
}

static void *trace_writer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&trace_lock);
    for (;;) {
        while (!trace_full_head && !trace_closing)
            pthread_cond_wait(&trace_cond, &trace_lock);
        trace_chunk_t *list = trace_full_head;
        trace_full_head = trace_full_tail = NULL;
        if (!list && trace_closing)
            break;
        pthread_mutex_unlock(&trace_lock);
        while (list) {
            trace_chunk_t *next = list->next;
            const char *p = (const char *)&list->block;
            size_t left = sizeof(trace_block_t) + (size_t)list->block.slots * sizeof(trace_slot_t);
            while (left) {
                ssize_t w = write(trace_fd, p, left);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0) {
                    trace_write_errors++;
                    break;
                }
                p += w;
                left -= (size_t)w;
            }
            pthread_mutex_lock(&trace_lock);
            list->next = trace_free;
            trace_free = list;
            pthread_mutex_unlock(&trace_lock);
            list = next;
        }
        pthread_mutex_lock(&trace_lock);
    }
    pthread_mutex_unlock(&trace_lock);
    return NULL;
}

static void trace_open(void)
{
    trace_fd = open(opt.io_trace, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (trace_fd < 0)
        fatal(EXIT_USAGE, "--io-trace %s: %s", opt.io_trace, strerror(errno));
    unsigned char h[64];
    memset(h, 0, sizeof h);
    uint16_t version = TRACE_VERSION, size = sizeof(trace_slot_t);
    uint32_t every = (uint32_t)opt.io_trace_every, pid = (uint32_t)getpid(), base = (uint32_t)opt.thread_base;
    uint64_t mono = now_ns(CLOCK_MONOTONIC), real = now_ns(CLOCK_REALTIME);
    memcpy(h, TRACE_MAGIC, 8);
    memcpy(h + 8, &version, 2);
    memcpy(h + 10, &size, 2);
    memcpy(h + 12, &every, 4);
    memcpy(h + 16, &pid, 4);
    memcpy(h + 20, &base, 4);
    memcpy(h + 24, &mono, 8);
    memcpy(h + 32, &real, 8);
    if (write(trace_fd, h, sizeof h) != (ssize_t)sizeof h)
        fatal(EXIT_USAGE, "--io-trace %s: cannot write its header: %s", opt.io_trace, strerror(errno));
    if (pthread_create(&trace_writer, NULL, trace_writer_main, NULL) != 0)
        fatal(EXIT_PREPARE, "cannot start the trace writer thread: %s", strerror(errno));
    atomic_store(&trace_level, opt.io_trace_level);
}

/* After every thread ended: hand over what is left, let the writer drain, close the file. */
static void trace_close(void)
{
    if (trace_fd < 0)
        return;
    pthread_mutex_lock(&trace_lock);
    trace_closing = 1;
    pthread_cond_signal(&trace_cond);
    pthread_mutex_unlock(&trace_lock);
    pthread_join(trace_writer, NULL);
    if (close(trace_fd) != 0 || trace_write_errors)
        fprintf(stderr, "gfapi-worker: trace file %s incomplete: %" PRIu64 " chunk(s) not written\n", opt.io_trace,
                trace_write_errors);
    trace_fd = -1;
}

/* ---- threads --------------------------------------------------------------------------------- */

enum state { ST_PREPARING, ST_READY, ST_RUNNING, ST_DONE };

typedef struct {
    int index, label;
    pthread_t tid;
    _Atomic int state;
    _Atomic uint64_t files, ios, bytes;
    uint64_t start_mono, start_real, end_mono;
    int64_t found_size; /* the size of the thread's first file before the start (-1: none, or seq-wr) */
    op_hist_t hist[OP_COUNT];
    /* error of a failed thread, written before state becomes ST_DONE */
    int err;
    char status[16];
    char errop[16];
    char errmsg[PATH_MAX + 256];
    /* I/O trace: the chunk being filled, its next free slot and its end (kept here, in a line the thread
     * touches anyway, rather than as a count in the chunk's header), and how many operations to skip
     * before the next recorded one (--io-trace-every N: a countdown, so sampling costs a decrement, not a
     * 64-bit division) */
    struct trace_chunk *tchunk;
    trace_slot_t *tnext, *tend;
    uint64_t tskip, tevery;
    /* working memory */
    char *buf;
    uint64_t *offsets;
    uint64_t rng;
    char path[PATH_MAX];
    /* reporter's view: what was already reported */
    int rep_started, rep_done;
    uint64_t rep_sum[OP_COUNT];
    uint64_t rep_buckets[OP_COUNT][NBUCKETS];
    unsigned delta_index[NBUCKETS];
    uint64_t delta_count[NBUCKETS];
} thread_t;

static thread_t *threads;

/* Start: every thread waits on start_cond until `started`, then sleeps until start_at (if set). */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static int started;
static uint64_t start_at_real; /* 0: start at once */
static int prepared_count;
static pthread_cond_t prepared_cond = PTHREAD_COND_INITIALIZER;

static _Atomic int stop_requested;
static _Atomic int snap_requested;

/* The reporter sleeps on this between ticks; threads finishing and `snap` wake it early. */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t report_cond;

static void wake_reporter(void)
{
    pthread_mutex_lock(&report_lock);
    pthread_cond_signal(&report_cond);
    pthread_mutex_unlock(&report_lock);
}

static uint64_t rng_next(uint64_t *s) /* xorshift64* */
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static uint64_t rng_below(uint64_t *s, uint64_t n) /* unbiased, by rejection */
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do
        r = rng_next(s);
    while (r >= limit);
    return r % n;
}

static inline void relaxed_add(_Atomic uint64_t *v, uint64_t n)
{
    /* single writer: a load and a store are enough and cost no locked instruction */
    atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + n, memory_order_relaxed);
}

static inline void note(thread_t *t, enum op op, uint64_t ns)
{
    op_hist_t *h = &t->hist[op];
    relaxed_add(&h->buckets[bucket_of(ns)], 1);
    relaxed_add(&h->sum_ns, ns);
    if (ns > atomic_load_explicit(&h->max_ns, memory_order_relaxed))
        atomic_store_explicit(&h->max_ns, ns, memory_order_relaxed);
    relaxed_add(&h->count, 1);
}

/* A thread's chunk, full or at the end, to the writer: its block header is completed here. */
static void trace_hand_over(thread_t *t)
{
    trace_chunk_t *c = t->tchunk;
    if (!c)
        return;
    c->block.slots = t->tnext ? (uint32_t)(t->tnext - c->slot) : 0;
    c->block.events = c->block.slots - c->wide;
    trace_submit(c);
    t->tchunk = NULL;
    t->tnext = t->tend = NULL;
}

/* A fresh chunk for a thread whose last one went to the writer (rare: once per 16383 slots). */
static __attribute__((noinline)) trace_slot_t *trace_take(thread_t *t)
{
    trace_chunk_t *c = t->tchunk = trace_chunk_new();
    if (!c)
        return NULL; /* out of memory: the event is lost, the measurement goes on */
    c->block.thread = (uint32_t)t->label;
    t->tend = &c->slot[TRACE_CHUNK_SLOTS - 1]; /* one slot short: a wide event always fits */
    return t->tnext = c->slot;
}

/* An event that does not fit one slot (rare): its second slot holds duration and bytes in full. */
static __attribute__((noinline)) trace_slot_t *trace_wide(thread_t *t, trace_slot_t *e, uint64_t ns, uint64_t bytes,
                                                          uint32_t word)
{
    e->ev.duration_ns = 0;
    e->ev.word = word | TRACE_FLAG_WIDE;
    e[1].wide.duration_ns = ns;
    e[1].wide.bytes = bytes;
    t->tchunk->wide++;
    return e + 2;
}

/* One traced operation: a relaxed load when tracing is off; when on, 16 bytes into this thread's chunk
 * through a pointer in the thread's own struct (a full chunk goes to the writer thread and a fresh one
 * is taken, from a free list once warm). */
static inline void trace_io(thread_t *t, enum op op, uint64_t start, uint64_t ns, int64_t result)
{
    if (atomic_load_explicit(&trace_level, memory_order_relaxed) != TRACE_IO)
        return;
    if (t->tskip) { /* sampling: one operation in --io-trace-every, the first one included */
        t->tskip--;
        return;
    }
    t->tskip = t->tevery;
    trace_slot_t *e = t->tnext;
    if (!e && !(e = trace_take(t)))
        return;
    uint64_t bytes = (result > 0 && (op == OP_READ || op == OP_WRITE)) ? (uint64_t)result : 0;
    uint32_t word = (uint32_t)op << TRACE_OP_SHIFT | (result < 0 ? TRACE_FLAG_ERROR : 0);
    e->ev.start_ns = start;
    if (__builtin_expect(ns <= UINT32_MAX && bytes <= TRACE_BYTES_MAX, 1)) {
        e->ev.duration_ns = (uint32_t)ns;
        e->ev.word = word | (uint32_t)bytes;
        e++;
    } else {
        e = trace_wide(t, e, ns, bytes, word);
    }
    t->tnext = e;
    if (e >= t->tend)
        trace_hand_over(t);
}

/* A thread's chunk and one spare (on the free list, for when the first one goes to the writer), both
 * touched here: a chunk is larger than malloc's mmap threshold, so its pages would otherwise be
 * faulted in one by one by the measuring thread. */
static int trace_prepare(thread_t *t)
{
    trace_chunk_t *spare = malloc(sizeof *spare); /* not from the free list: each thread adds one */
    t->tevery = opt.io_trace_every - 1;
    if (!spare || !trace_take(t)) {
        free(spare);
        return -1;
    }
    memset(spare, 0, sizeof *spare);
    memset(t->tchunk->slot, 0, sizeof t->tchunk->slot);
    trace_submit(spare); /* empty: straight to the free list */
    return 0;
}

/* A switch of the trace level, recorded in the trace (thread -1: the process). */
static void trace_level_event(int level)
{
    if (trace_fd < 0)
        return;
    trace_chunk_t *c = trace_chunk_new();
    if (!c)
        return;
    c->slot[0].ev.start_ns = now_ns(CLOCK_MONOTONIC);
    c->slot[0].ev.duration_ns = 0;
    c->slot[0].ev.word = TRACE_OP_LEVEL << TRACE_OP_SHIFT | (uint32_t)level; /* bytes: the new level */
    c->block.thread = UINT32_MAX; /* the process, not a thread */
    c->block.slots = c->block.events = 1;
    trace_submit(c);
}

static uint64_t records_per_file(void)
{
    return (opt.file_size + opt.record_size - 1) / opt.record_size;
}

/* Directory layout: <dir>/t<label>/[d<i>/...]/f<kkkkkkk>, at most files_per_dir files in a leaf and
 * dirs_per_dir subdirectories in a directory, with as many levels as the file count needs. */
static uint64_t leaf_count(void)
{
    return opt.files == 0 ? 1 : (opt.files + opt.files_per_dir - 1) / opt.files_per_dir;
}

static int levels(void)
{
    uint64_t leaves = leaf_count(), span = 1;
    int n = 0;
    while (span < leaves) {
        span *= opt.dirs_per_dir;
        n++;
    }
    return n;
}

static int digits(uint64_t max_value)
{
    int n = 1;
    while (max_value >= 10) {
        max_value /= 10;
        n++;
    }
    return n;
}

/* Path of leaf directory `leaf` of thread t, optionally only its first `depth` levels. */
static int leaf_path(const thread_t *t, uint64_t leaf, int depth, char *out, size_t size)
{
    int L = levels(), width = digits(opt.dirs_per_dir - 1);
    int len = snprintf(out, size, "%s/t%03d", opt.dir, t->label);
    uint64_t div = 1;
    for (int i = 1; i < L; i++)
        div *= opt.dirs_per_dir;
    for (int i = 0; i < L && i < depth; i++) {
        uint64_t digit = (leaf / div) % opt.dirs_per_dir;
        len += snprintf(out + len, size - (size_t)len, "/d%0*" PRIu64, width, digit);
        div /= opt.dirs_per_dir;
        if ((size_t)len >= size)
            return -1;
    }
    return (size_t)len < size ? 0 : -1;
}

static int file_path(const thread_t *t, uint64_t k, char *out, size_t size)
{
    if (leaf_path(t, k / opt.files_per_dir, levels(), out, size) != 0)
        return -1;
    size_t len = strlen(out);
    int n = snprintf(out + len, size - len, "/f%07" PRIu64, k);
    return (n > 0 && (size_t)n < size - len) ? 0 : -1;
}

static void thread_fail(thread_t *t, const char *op, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void thread_fail(thread_t *t, const char *op, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->errmsg, sizeof t->errmsg, fmt, ap);
    va_end(ap);
    one_line(t->errmsg);
    t->err = err;
    snprintf(t->errop, sizeof t->errop, "%s", op);
    snprintf(t->status, sizeof t->status, "failed");
}

/* mkdir -p: 0, or an errno with the component that failed in `failed`. *existed says whether the
 * last component was there already. Another thread or process creating the same parent at the same
 * moment can make a child's mkdir see ENOENT for a while (GlusterFS answers EEXIST to the second
 * mkdir before the first one is complete): retry that for up to ~5 s before giving up. */
static int mkdir_p(const char *path, int *existed, char *failed, size_t failed_size)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (int attempt = 0;; attempt++) {
        int err = 0;
        *existed = 0;
        for (char *p = tmp + 1; !err; p++) {
            if (*p != '/' && *p != '\0')
                continue;
            char saved = *p;
            *p = '\0';
            if (fs_mkdir(tmp) != 0) {
                if (errno != EEXIST) {
                    err = errno;
                    snprintf(failed, failed_size, "%s", tmp);
                } else if (saved == '\0') {
                    *existed = 1;
                }
            }
            *p = saved;
            if (saved == '\0')
                break;
        }
        if (err != ENOENT || attempt >= 250 || atomic_load(&stop_requested))
            return err;
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 20 * 1000000L};
        nanosleep(&pause, NULL);
    }
}

static int make_dirs(thread_t *t, const char *path, int *existed)
{
    char failed[PATH_MAX];
    int err = mkdir_p(path, existed, failed, sizeof failed);
    if (err) {
        thread_fail(t, "mkdir", err, "mkdir %s: %s", failed, strerror(err));
        return -1;
    }
    return 0;
}

/* Everything that must not be measured: buffers, offsets, directories, leftovers of an earlier
 * seq-wr (removed so that seq-wr measures creating new files, as O_EXCL demands). */
static int prepare(thread_t *t)
{
    if (trace_fd >= 0 && trace_prepare(t) != 0) {
        thread_fail(t, "prepare", ENOMEM, "cannot allocate the I/O trace buffer");
        return -1;
    }
    if (posix_memalign((void **)&t->buf, ALIGNMENT, opt.record_size) != 0) {
        thread_fail(t, "prepare", ENOMEM, "cannot allocate a %" PRIu64 "-byte buffer", opt.record_size);
        return -1;
    }
    t->rng = opt.seed * 0x9E3779B97F4A7C15ull + (uint64_t)t->label + 1;
    for (uint64_t i = 0; i < opt.record_size; i++)
        t->buf[i] = (char)(rng_next(&t->rng) >> 56); /* not zeros: nothing may compress them away */
    if (opt.workload == WL_RND_RD || opt.workload == WL_RND_WR) {
        uint64_t n = records_per_file();
        t->offsets = malloc(n * sizeof *t->offsets);
        if (!t->offsets) {
            thread_fail(t, "prepare", ENOMEM, "cannot allocate %" PRIu64 " offsets", n);
            return -1;
        }
        for (uint64_t i = 0; i < n; i++)
            t->offsets[i] = i * opt.record_size;
    }
    t->found_size = -1;
    if (opt.workload != WL_SEQ_WR) { /* everything must exist already: say so before the start */
        struct stat st;
        if (leaf_path(t, 0, 0, t->path, sizeof t->path) != 0 || fs_stat(t->path, &st) != 0) {
            thread_fail(t, "prepare", errno, "%s: %s (run seq-wr with the same layout first)", t->path,
                        strerror(errno));
            return -1;
        }
        /* the size of the files it works on, as found (an unlink's size is whatever was written) */
        if (file_path(t, 0, t->path, sizeof t->path) == 0 && fs_stat(t->path, &st) == 0)
            t->found_size = (int64_t)st.st_size;
        return 0;
    }
    uint64_t leaves = leaf_count();
    for (uint64_t leaf = 0; leaf < leaves; leaf++) {
        char dir[PATH_MAX];
        int existed = 0;
        if (leaf_path(t, leaf, levels(), dir, sizeof dir) != 0) {
            thread_fail(t, "prepare", ENAMETOOLONG, "directory path too long under %s", opt.dir);
            return -1;
        }
        if (make_dirs(t, dir, &existed) != 0)
            return -1;
        if (existed) {
            uint64_t first = leaf * opt.files_per_dir, last = first + opt.files_per_dir;
            for (uint64_t k = first; k < last && k < opt.files; k++) {
                if (file_path(t, k, t->path, sizeof t->path) == 0 && fs_unlink(t->path) != 0 && errno != ENOENT) {
                    thread_fail(t, "unlink", errno, "removing the earlier %s: %s", t->path, strerror(errno));
                    return -1;
                }
            }
        }
        if (atomic_load(&stop_requested))
            return -1;
    }
    return 0;
}

#define TIMED(t, op, call, result)                         \
    do {                                                   \
        uint64_t t0_ = now_ns(CLOCK_MONOTONIC);            \
        result = (call);                                   \
        uint64_t ns_ = now_ns(CLOCK_MONOTONIC) - t0_;      \
        note((t), (op), ns_);                              \
        trace_io((t), (op), t0_, ns_, (int64_t)(result));  \
    } while (0)

static int do_io(thread_t *t, file_t *f, int write, uint64_t off, const char *what)
{
    size_t n = (size_t)((opt.file_size - off) < opt.record_size ? (opt.file_size - off) : opt.record_size);
    ssize_t got;
    if (write)
        TIMED(t, OP_WRITE, fs_pwrite(f, t->buf, n, (off_t)off), got);
    else
        TIMED(t, OP_READ, fs_pread(f, t->buf, n, (off_t)off), got);
    if (got < 0) {
        thread_fail(t, write ? "write" : "read", errno, "%s %s at offset %" PRIu64 ": %s", what, t->path, off,
                    strerror(errno));
        return -1;
    }
    if ((size_t)got != n) {
        thread_fail(t, write ? "write" : "read", EIO, "%s %s at offset %" PRIu64 ": %zd of %zu bytes "
                    "(is the file shorter than file_size? run seq-wr with the same layout first)",
                    what, t->path, off, got, n);
        return -1;
    }
    relaxed_add(&t->ios, 1);
    relaxed_add(&t->bytes, (uint64_t)got);
    return 0;
}

static int one_file(thread_t *t, uint64_t k)
{
    if (file_path(t, k, t->path, sizeof t->path) != 0) {
        thread_fail(t, "open", ENAMETOOLONG, "file path too long under %s", opt.dir);
        return -1;
    }
    uint64_t file_t0 = now_ns(CLOCK_MONOTONIC);
    int rc;
    if (opt.workload == WL_UNLINK) {
        TIMED(t, OP_UNLINK, fs_unlink(t->path), rc);
        if (rc != 0) {
            thread_fail(t, "unlink", errno, "unlink %s: %s", t->path, strerror(errno));
            return -1;
        }
        note(t, OP_FILE, now_ns(CLOCK_MONOTONIC) - file_t0);
        relaxed_add(&t->files, 1);
        return 0;
    }
    int writes = opt.workload == WL_SEQ_WR || opt.workload == WL_RND_WR;
    int flags = opt.workload == WL_SEQ_WR   ? O_WRONLY | O_CREAT | O_EXCL
                : opt.workload == WL_RND_WR ? O_WRONLY
                : opt.workload == WL_RW_MIX ? O_RDWR
                                            : O_RDONLY;
    if (opt.direct)
        flags |= O_DIRECT;
    file_t f;
    TIMED(t, OP_OPEN, fs_open(&f, t->path, flags, 0644), rc);
    if (rc != 0) {
        thread_fail(t, "open", errno, "open %s: %s%s", t->path, strerror(errno),
                    errno == ENOENT && !writes ? " (run seq-wr with the same layout first)" : "");
        return -1;
    }
    uint64_t records = records_per_file();
    int failed = 0;
    if (opt.workload == WL_SEQ_WR || opt.workload == WL_SEQ_RD) {
        for (uint64_t i = 0; i < records && !failed; i++) {
            if (atomic_load_explicit(&stop_requested, memory_order_relaxed))
                break;
            failed = do_io(t, &f, writes, i * opt.record_size, writes ? "write" : "read") != 0;
        }
    } else if (opt.workload == WL_RW_MIX) {
        for (uint64_t i = 0; i < records && !failed; i++) {
            if (atomic_load_explicit(&stop_requested, memory_order_relaxed))
                break;
            int w = (int)rng_below(&t->rng, 100) >= opt.read_pct;
            writes |= w;
            failed = do_io(t, &f, w, i * opt.record_size, w ? "write" : "read") != 0;
        }
    } else { /* random: a fresh partial Fisher-Yates draw of distinct record offsets per file */
        uint64_t n = opt.io_requests ? opt.io_requests : records;
        for (uint64_t i = 0; i < n && !failed; i++) {
            if (atomic_load_explicit(&stop_requested, memory_order_relaxed))
                break;
            uint64_t j = i + rng_below(&t->rng, records - i);
            uint64_t tmp = t->offsets[i];
            t->offsets[i] = t->offsets[j];
            t->offsets[j] = tmp;
            failed = do_io(t, &f, writes, t->offsets[i], writes ? "write" : "read") != 0;
        }
    }
    if (!failed && writes && opt.fsync_on_close) {
        TIMED(t, OP_FSYNC, fs_fsync(&f), rc);
        if (rc != 0) {
            thread_fail(t, "fsync", errno, "fsync %s: %s", t->path, strerror(errno));
            failed = 1;
        }
    }
    TIMED(t, OP_CLOSE, fs_close(&f), rc);
    if (rc != 0 && !failed) {
        thread_fail(t, "close", errno, "close %s: %s", t->path, strerror(errno));
        failed = 1;
    }
    if (failed)
        return -1;
    if (atomic_load_explicit(&stop_requested, memory_order_relaxed))
        return 1; /* stopped inside the file: it does not count as done */
    note(t, OP_FILE, now_ns(CLOCK_MONOTONIC) - file_t0);
    relaxed_add(&t->files, 1);
    return 0;
}

static void *thread_main(void *arg)
{
    thread_t *t = arg;
    snprintf(t->status, sizeof t->status, "ok");
    int ok = prepare(t) == 0;
    pthread_mutex_lock(&start_lock);
    if (ok)
        atomic_store(&t->state, ST_READY);
    prepared_count++;
    pthread_cond_broadcast(&prepared_cond);
    while (ok && !started)
        pthread_cond_wait(&start_cond, &start_lock);
    uint64_t at = start_at_real;
    pthread_mutex_unlock(&start_lock);
    if (!ok) {
        if (strcmp(t->status, "ok") == 0)
            snprintf(t->status, sizeof t->status, "stopped");
        t->start_mono = t->end_mono = now_ns(CLOCK_MONOTONIC); /* never started: no 's' line */
        atomic_store_explicit(&t->state, ST_DONE, memory_order_release);
        wake_reporter();
        return NULL;
    }
    if (at) {
        struct timespec ts = {.tv_sec = (time_t)(at / 1000000000ull), .tv_nsec = (long)(at % 1000000000ull)};
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
            if (atomic_load(&stop_requested))
                break;
    }
    t->start_mono = now_ns(CLOCK_MONOTONIC);
    t->start_real = now_ns(CLOCK_REALTIME);
    atomic_store_explicit(&t->state, ST_RUNNING, memory_order_release);
    /* With more threads than cores, the first ones woken would run on and the others start only when
     * the scheduler gets to them. Give the core up once, so every woken thread begins promptly; the
     * pause counts in this thread's own measured time, which began above. */
    sched_yield();
    for (uint64_t k = 0; k < opt.files; k++) {
        if (atomic_load_explicit(&stop_requested, memory_order_relaxed)) {
            snprintf(t->status, sizeof t->status, "stopped");
            break;
        }
        int rc = one_file(t, k);
        if (rc < 0)
            break;
        if (rc > 0) {
            snprintf(t->status, sizeof t->status, "stopped");
            break;
        }
    }
    t->end_mono = now_ns(CLOCK_MONOTONIC);
    trace_hand_over(t); /* after the measured part */
    atomic_store_explicit(&t->state, ST_DONE, memory_order_release);
    wake_reporter();
    return NULL;
}

/* ---- reporter ---------------------------------------------------------------------------------- */

typedef struct {
    char *data;
    size_t len, cap;
} sbuf_t;

static void sb_printf(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf_t *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t want = b->cap * 2 + (size_t)(n > 0 ? n : 256);
        char *grown = realloc(b->data, want);
        if (!grown)
            fatal(EXIT_SOME_FAILED, "out of memory in the reporter");
        b->data = grown;
        b->cap = want;
    }
}

/* Counters and histogram deltas of thread t; `final` also reports its end. */
static void report_thread(sbuf_t *b, thread_t *t, int final)
{
    uint64_t now = final ? t->end_mono : now_ns(CLOCK_MONOTONIC);
    if (!t->rep_started && t->start_real) {
        sb_printf(b, "s %d %" PRIu64 "\n", t->label, t->start_real);
        t->rep_started = 1;
    }
    uint64_t elapsed = now > t->start_mono ? now - t->start_mono : 0;
    sb_printf(b, "p %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t->label, elapsed,
              atomic_load_explicit(&t->files, memory_order_relaxed),
              atomic_load_explicit(&t->ios, memory_order_relaxed),
              atomic_load_explicit(&t->bytes, memory_order_relaxed));
    for (int op = 0; op < OP_COUNT; op++) {
        op_hist_t *h = &t->hist[op];
        /* The thread bumps a bucket before the count: take the count as the sum of the bucket
         * deltas read here, so every h line is consistent; sum and max catch up by the next one. */
        unsigned changed = 0;
        uint64_t count = 0;
        for (unsigned i = 0; i < NBUCKETS; i++) {
            uint64_t v = atomic_load_explicit(&h->buckets[i], memory_order_relaxed);
            if (v == t->rep_buckets[op][i])
                continue;
            t->delta_index[changed] = i;
            t->delta_count[changed] = v - t->rep_buckets[op][i];
            count += t->delta_count[changed++];
            t->rep_buckets[op][i] = v;
        }
        if (!changed)
            continue;
        uint64_t sum = atomic_load_explicit(&h->sum_ns, memory_order_relaxed);
        uint64_t maxv = atomic_load_explicit(&h->max_ns, memory_order_relaxed);
        sb_printf(b, "h %d %s %" PRIu64 " %" PRIu64 " %" PRIu64 " ", t->label, OP_NAMES[op], count,
                  sum - t->rep_sum[op], maxv);
        t->rep_sum[op] = sum;
        for (unsigned j = 0; j < changed; j++)
            sb_printf(b, "%s%u:%" PRIu64, j ? "," : "", t->delta_index[j], t->delta_count[j]);
        sb_printf(b, "\n");
    }
    if (final) {
        if (strcmp(t->status, "failed") == 0)
            sb_printf(b, "e %d %d %s %s\n", t->label, t->err, t->errop, t->errmsg);
        sb_printf(b, "d %d %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t->label, t->status, elapsed,
                  atomic_load_explicit(&t->files, memory_order_relaxed),
                  atomic_load_explicit(&t->ios, memory_order_relaxed),
                  atomic_load_explicit(&t->bytes, memory_order_relaxed));
        t->rep_done = 1;
    }
}

static int reporter_tick(sbuf_t *b)
{
    int remaining = 0;
    b->len = 0;
    for (int i = 0; i < opt.threads; i++) {
        thread_t *t = &threads[i];
        if (t->rep_done)
            continue;
        int st = atomic_load_explicit(&t->state, memory_order_acquire);
        if (st == ST_DONE)
            report_thread(b, t, 1);
        else if (st == ST_RUNNING)
            report_thread(b, t, 0);
        if (!t->rep_done)
            remaining++;
    }
    if (b->len) {
        pthread_mutex_lock(&out_lock);
        fwrite(b->data, 1, b->len, stdout);
        fflush(stdout);
        pthread_mutex_unlock(&out_lock);
    }
    return remaining;
}

static void *reporter_main(void *arg)
{
    (void)arg;
    sbuf_t b = {.data = malloc(65536), .len = 0, .cap = 65536};
    if (!b.data)
        fatal(EXIT_SOME_FAILED, "out of memory in the reporter");
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    for (;;) {
        if (reporter_tick(&b) == 0)
            break;
        uint64_t next = (uint64_t)deadline.tv_sec * 1000000000ull + (uint64_t)deadline.tv_nsec +
                        (uint64_t)opt.interval_ms * 1000000ull;
        deadline.tv_sec = (time_t)(next / 1000000000ull);
        deadline.tv_nsec = (long)(next % 1000000000ull);
        pthread_mutex_lock(&report_lock);
        for (;;) {
            int any_done = 0;
            for (int i = 0; i < opt.threads && !any_done; i++)
                any_done = !threads[i].rep_done &&
                           atomic_load_explicit(&threads[i].state, memory_order_acquire) == ST_DONE;
            if (any_done || atomic_exchange(&snap_requested, 0))
                break;
            if (pthread_cond_timedwait(&report_cond, &report_lock, &deadline) == ETIMEDOUT)
                break;
        }
        pthread_mutex_unlock(&report_lock);
        if (now_ns(CLOCK_MONOTONIC) >
            (uint64_t)deadline.tv_sec * 1000000000ull + (uint64_t)deadline.tv_nsec + 10ull * opt.interval_ms * 1000000ull)
            clock_gettime(CLOCK_MONOTONIC, &deadline); /* fell far behind (suspended): do not burst */
    }
    free(b.data);
    return NULL;
}

/* ---- control: stdin commands and signals ------------------------------------------------------ */

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_requested, 1);
}

/* SIGUSR1: I/O events off ("run" level); SIGUSR2: on ("io"). The main loop records the switch. */
static _Atomic int level_requested = -1;

static void on_level_signal(int sig)
{
    atomic_store(&level_requested, sig == SIGUSR2 ? TRACE_IO : TRACE_RUN);
}

static void apply_level_request(void)
{
    int want = atomic_exchange(&level_requested, -1);
    if (want < 0 || trace_fd < 0 || want == atomic_load(&trace_level))
        return;
    atomic_store(&trace_level, want);
    trace_level_event(want);
    fprintf(stderr, "gfapi-worker: trace level %s\n", want == TRACE_IO ? "io" : "run");
}

/* Read one command line from stdin, waiting at most timeout_ms (-1: forever).
 * Returns 1 with a line, 0 on timeout or signal, -1 at end of input. */
static int read_command(char *line, size_t size, int timeout_ms)
{
    static char pending[4096];
    static size_t have;
    for (;;) {
        char *nl = memchr(pending, '\n', have);
        if (nl) {
            size_t n = (size_t)(nl - pending);
            size_t copy = n < size - 1 ? n : size - 1;
            memcpy(line, pending, copy);
            line[copy] = '\0';
            memmove(pending, nl + 1, have - n - 1);
            have -= n + 1;
            return 1;
        }
        if (have == sizeof pending)
            have = 0; /* an absurdly long line: drop it */
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        int rc = poll(&p, 1, timeout_ms);
        if (rc <= 0)
            return 0;
        ssize_t n = read(STDIN_FILENO, pending + have, sizeof pending - have);
        if (n < 0)
            return errno == EINTR || errno == EAGAIN ? 0 : -1;
        if (n == 0)
            return -1;
        have += (size_t)n;
    }
}

/* ---- command line ------------------------------------------------------------------------------ */

static uint64_t parse_u64(const char *name, const char *text, uint64_t min)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || end == text || text[0] == '-' || v < min)
        fatal(EXIT_USAGE, "--%s: expected a whole number >= %" PRIu64 ", got '%s'", name, min, text);
    return (uint64_t)v;
}

static void usage(void)
{
    fputs("usage: gfapi-worker --dir DIR [--gfapi --volume V --server HOST [--transport tcp] [--port 24007]]\n"
          "         [--threads N] [--thread-base N] [--workload seq-wr|seq-rd|rnd-wr|rnd-rd|unlink|rw-mix]\n"
          "         [--files N] [--file-size BYTES] [--record-size BYTES] [--files-per-dir N]\n"
          "         [--dirs-per-dir N] [--io-requests N] [--read-pct P] [--direct] [--fsync]\n"
          "         [--trace-level N] [--log-file PATH] [--interval-ms N] [--seed N]\n"
          "         [--io-trace FILE [--io-trace-every N] [--io-trace-level run|io]]\n"
          "       gfapi-worker --version | --bucket-of\n"
          "Prepares, prints 'ready', waits for 'start <unix-ns>' (0: now) on stdin; see\n"
          "gftpwb/drivers/gfapi_protocol.py for the line protocol.\n",
          stderr);
}

static void parse_args(int argc, char **argv)
{
    enum { OPT_GFAPI = 256, OPT_VOLUME, OPT_SERVER, OPT_TRANSPORT, OPT_PORT, OPT_DIR, OPT_THREADS, OPT_THREAD_BASE, OPT_WORKLOAD,
           OPT_FILES, OPT_FILE_SIZE, OPT_RECORD_SIZE, OPT_FPD, OPT_DPD, OPT_IOREQ, OPT_READ_PCT, OPT_DIRECT, OPT_FSYNC, OPT_TRACE,
           OPT_LOG, OPT_INTERVAL, OPT_SEED, OPT_VERSION, OPT_BUCKET, OPT_HELP, OPT_IO_TRACE, OPT_IO_EVERY, OPT_IO_LEVEL };
    static const struct option longopts[] = {
        {"gfapi", no_argument, NULL, OPT_GFAPI}, {"volume", required_argument, NULL, OPT_VOLUME},
        {"server", required_argument, NULL, OPT_SERVER}, {"transport", required_argument, NULL, OPT_TRANSPORT},
        {"port", required_argument, NULL, OPT_PORT}, {"dir", required_argument, NULL, OPT_DIR},
        {"threads", required_argument, NULL, OPT_THREADS}, {"thread-base", required_argument, NULL, OPT_THREAD_BASE},
        {"workload", required_argument, NULL, OPT_WORKLOAD}, {"files", required_argument, NULL, OPT_FILES},
        {"file-size", required_argument, NULL, OPT_FILE_SIZE}, {"record-size", required_argument, NULL, OPT_RECORD_SIZE},
        {"files-per-dir", required_argument, NULL, OPT_FPD}, {"dirs-per-dir", required_argument, NULL, OPT_DPD},
        {"io-requests", required_argument, NULL, OPT_IOREQ}, {"read-pct", required_argument, NULL, OPT_READ_PCT},
        {"direct", no_argument, NULL, OPT_DIRECT}, {"fsync", no_argument, NULL, OPT_FSYNC},
        {"trace-level", required_argument, NULL, OPT_TRACE}, {"log-file", required_argument, NULL, OPT_LOG},
        {"interval-ms", required_argument, NULL, OPT_INTERVAL}, {"seed", required_argument, NULL, OPT_SEED},
        {"version", no_argument, NULL, OPT_VERSION}, {"bucket-of", no_argument, NULL, OPT_BUCKET},
        {"help", no_argument, NULL, OPT_HELP}, {"io-trace", required_argument, NULL, OPT_IO_TRACE},
        {"io-trace-every", required_argument, NULL, OPT_IO_EVERY},
        {"io-trace-level", required_argument, NULL, OPT_IO_LEVEL}, {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_GFAPI: opt.use_gfapi = 1; break;
        case OPT_VOLUME: opt.volume = optarg; break;
        case OPT_SERVER: opt.server = optarg; break;
        case OPT_TRANSPORT: opt.transport = optarg; break;
        case OPT_PORT: opt.port = (int)parse_u64("port", optarg, 1); break;
        case OPT_DIR: opt.dir = optarg; break;
        case OPT_THREADS: opt.threads = (int)parse_u64("threads", optarg, 1); break;
        case OPT_THREAD_BASE: opt.thread_base = (int)parse_u64("thread-base", optarg, 0); break;
        case OPT_WORKLOAD: {
            int found = -1;
            for (int i = 0; i < (int)(sizeof WORKLOAD_NAMES / sizeof *WORKLOAD_NAMES); i++)
                if (strcmp(optarg, WORKLOAD_NAMES[i]) == 0)
                    found = i;
            if (found < 0)
                fatal(EXIT_USAGE, "--workload: unknown workload '%s' (seq-wr, seq-rd, rnd-wr, rnd-rd, unlink, rw-mix)",
                      optarg);
            opt.workload = (enum workload)found;
            break;
        }
        case OPT_FILES: opt.files = parse_u64("files", optarg, 0); break;
        case OPT_FILE_SIZE: opt.file_size = parse_u64("file-size", optarg, 1); break;
        case OPT_RECORD_SIZE: opt.record_size = parse_u64("record-size", optarg, 1); break;
        case OPT_FPD: opt.files_per_dir = parse_u64("files-per-dir", optarg, 1); break;
        case OPT_DPD: opt.dirs_per_dir = parse_u64("dirs-per-dir", optarg, 2); break;
        case OPT_IOREQ: opt.io_requests = parse_u64("io-requests", optarg, 0); break;
        case OPT_READ_PCT: opt.read_pct = (int)parse_u64("read-pct", optarg, 0); break;
        case OPT_DIRECT: opt.direct = 1; break;
        case OPT_FSYNC: opt.fsync_on_close = 1; break;
        case OPT_TRACE: opt.trace_level = (int)parse_u64("trace-level", optarg, 0); break;
        case OPT_LOG: opt.log_file = optarg; break;
        case OPT_INTERVAL: opt.interval_ms = (int)parse_u64("interval-ms", optarg, 1); break;
        case OPT_SEED: opt.seed = parse_u64("seed", optarg, 0); break;
        case OPT_VERSION: printf("gftpwb-gfapi-worker %d %s\n", PROTOCOL_VERSION, CAPABILITY); exit(0);
        case OPT_BUCKET: {
            char line[64];
            while (fgets(line, sizeof line, stdin))
                printf("%u\n", bucket_of(strtoull(line, NULL, 10)));
            exit(0);
        }
        case OPT_HELP: usage(); exit(0);
        case OPT_IO_TRACE: opt.io_trace = optarg; break;
        case OPT_IO_EVERY: opt.io_trace_every = parse_u64("io-trace-every", optarg, 1); break;
        case OPT_IO_LEVEL:
            if (strcmp(optarg, "run") != 0 && strcmp(optarg, "io") != 0)
                fatal(EXIT_USAGE, "--io-trace-level: run or io, got '%s'", optarg);
            opt.io_trace_level = strcmp(optarg, "io") == 0 ? TRACE_IO : TRACE_RUN;
            break;
        default: usage(); exit(EXIT_USAGE);
        }
    }
    if (optind < argc)
        fatal(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
    if (!opt.dir || !opt.dir[0])
        fatal(EXIT_USAGE, "--dir is required");
    if (opt.read_pct > 100)
        fatal(EXIT_USAGE, "--read-pct must be 0 to 100, got %d", opt.read_pct);
    if (opt.record_size > opt.file_size)
        opt.record_size = opt.file_size;
    if (opt.io_requests > records_per_file())
        fatal(EXIT_USAGE, "--io-requests %" PRIu64 " exceeds the %" PRIu64 " records of a file", opt.io_requests,
              records_per_file());
    if (opt.direct && (opt.record_size % 512 || opt.file_size % 512))
        fatal(EXIT_USAGE, "--direct needs record and file sizes that are multiples of 512 bytes");
    if (opt.use_gfapi) {
#ifndef GFTPWB_WITH_GFAPI
        fatal(EXIT_USAGE, "this worker was built without libgfapi (glusterfs/api/glfs.h was missing when it was "
              "compiled): install libglusterfs-dev (Debian/Ubuntu) or glusterfs-api-devel (RHEL), or use POSIX mode");
#endif
        if (!opt.volume || !opt.server)
            fatal(EXIT_USAGE, "--gfapi needs --volume and --server");
        if (opt.dir[0] != '/')
            fatal(EXIT_USAGE, "--dir must be absolute inside the volume, got '%s'", opt.dir);
    }
}

/* ---- main ---------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    parse_args(argc, argv);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns so the main loop sees the request */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    sa.sa_handler = on_level_signal;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    if (opt.io_trace)
        trace_open();

    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&report_cond, &ca);

    emit("hello %d %ld %d %s %s %d\n", PROTOCOL_VERSION, (long)getpid(), opt.threads,
         opt.use_gfapi ? "gfapi" : "posix", WORKLOAD_NAMES[opt.workload], opt.thread_base);

#ifdef GFTPWB_WITH_GFAPI
    if (opt.use_gfapi) {
        fs = glfs_new(opt.volume);
        if (!fs)
            fatal(EXIT_PREPARE, "glfs_new(%s) failed: %s", opt.volume, strerror(errno));
        if (glfs_set_volfile_server(fs, opt.transport, opt.server, opt.port) != 0)
            fatal(EXIT_PREPARE, "glfs_set_volfile_server(%s, %s, %d) failed: %s", opt.transport, opt.server,
                  opt.port, strerror(errno));
        if (glfs_set_logging(fs, opt.log_file, opt.trace_level) != 0)
            fatal(EXIT_PREPARE, "glfs_set_logging(%s, %d) failed: %s", opt.log_file, opt.trace_level,
                  strerror(errno));
        if (glfs_init(fs) != 0)
            fatal(EXIT_PREPARE, "cannot connect to volume '%s' on %s:%d (%s): glfs_init failed: %s "
                  "(does the volume exist and is it started? gluster volume info %s)", opt.volume, opt.server,
                  opt.port, opt.transport, strerror(errno), opt.volume);
    }
#endif

    if (opt.workload == WL_SEQ_WR) { /* the shared part of the tree, once, before the threads race for it */
        char failed[PATH_MAX];
        int existed;
        int err = mkdir_p(opt.dir, &existed, failed, sizeof failed);
        if (err)
            fatal(EXIT_PREPARE, "mkdir %s: %s", failed, strerror(err));
    }

    threads = calloc((size_t)opt.threads, sizeof *threads);
    if (!threads)
        fatal(EXIT_PREPARE, "cannot allocate %d threads", opt.threads);
    for (int i = 0; i < opt.threads; i++) {
        threads[i].index = i;
        threads[i].label = opt.thread_base + i;
        if (pthread_create(&threads[i].tid, NULL, thread_main, &threads[i]) != 0)
            fatal(EXIT_PREPARE, "cannot start thread %d: %s", i, strerror(errno));
    }

    /* Wait until every thread prepared (or failed to), then report readiness. */
    pthread_mutex_lock(&start_lock);
    while (prepared_count < opt.threads)
        pthread_cond_wait(&prepared_cond, &start_lock);
    pthread_mutex_unlock(&start_lock);
    int ready = 0;
    for (int i = 0; i < opt.threads; i++) {
        if (atomic_load(&threads[i].state) == ST_READY) {
            ready++;
            emit("r %d %" PRId64 "\n", threads[i].label, threads[i].found_size);
        }
    }
    pthread_t reporter;
    if (pthread_create(&reporter, NULL, reporter_main, NULL) != 0)
        fatal(EXIT_PREPARE, "cannot start the reporter thread: %s", strerror(errno));
    emit("ready %d\n", ready);

    /* Wait for the start command; nothing is measured before it. */
    char line[256];
    int exit_code = -1;
    while (!started) {
        int rc = read_command(line, sizeof line, 200);
        if (atomic_load(&stop_requested)) {
            exit_code = EXIT_STOPPED;
            break;
        }
        if (rc < 0) {
            exit_code = EXIT_NO_START;
            break;
        }
        if (rc == 0)
            continue;
        unsigned long long at;
        if (sscanf(line, "start %llu", &at) == 1) {
            pthread_mutex_lock(&start_lock);
            start_at_real = at;
            started = 1;
            pthread_cond_broadcast(&start_cond);
            pthread_mutex_unlock(&start_lock);
        } else if (strcmp(line, "stop") == 0) {
            exit_code = EXIT_STOPPED;
            break;
        } else if (strcmp(line, "trace io") == 0 || strcmp(line, "trace run") == 0) {
            atomic_store(&level_requested, line[6] == 'i' ? TRACE_IO : TRACE_RUN);
            apply_level_request();
        }
    }
    if (!started) { /* threads wait on the start condition: release them as stopped */
        atomic_store(&stop_requested, 1);
        pthread_mutex_lock(&start_lock);
        start_at_real = 0;
        started = 1;
        pthread_cond_broadcast(&start_cond);
        pthread_mutex_unlock(&start_lock);
    }

    /* Running: serve `snap` and `stop`; end of input means the controller is gone: stop too. */
    int eof = 0;
    for (;;) {
        int all_done = 1;
        for (int i = 0; i < opt.threads; i++)
            all_done &= atomic_load_explicit(&threads[i].state, memory_order_acquire) == ST_DONE;
        if (all_done)
            break;
        apply_level_request();
        int rc = eof ? (poll(NULL, 0, 50), 0) : read_command(line, sizeof line, 50);
        if (rc < 0) {
            eof = 1;
            atomic_store(&stop_requested, 1);
        } else if (rc > 0 && strcmp(line, "snap") == 0) {
            atomic_store(&snap_requested, 1);
            wake_reporter();
        } else if (rc > 0 && strcmp(line, "stop") == 0) {
            atomic_store(&stop_requested, 1);
        } else if (rc > 0 && (strcmp(line, "trace io") == 0 || strcmp(line, "trace run") == 0)) {
            atomic_store(&level_requested, line[6] == 'i' ? TRACE_IO : TRACE_RUN);
            apply_level_request();
        }
    }
    for (int i = 0; i < opt.threads; i++)
        pthread_join(threads[i].tid, NULL);
    wake_reporter();
    pthread_join(reporter, NULL);
    apply_level_request();
    trace_close(); /* the trace file is complete before `end` */

    if (exit_code < 0) {
        exit_code = EXIT_ALL_OK;
        for (int i = 0; i < opt.threads; i++) {
            if (strcmp(threads[i].status, "failed") == 0)
                exit_code = EXIT_SOME_FAILED;
            else if (strcmp(threads[i].status, "stopped") == 0 && exit_code == EXIT_ALL_OK)
                exit_code = EXIT_STOPPED;
        }
    }
    emit("end %d\n", exit_code);
    /* No glfs_fini: it takes ~10 s (its timers wind down) and adds nothing here. Every file was closed,
     * which flushes libgfapi's write-behind, before its thread reported; exiting drops the connection
     * and the bricks clean up. seq-rd after seq-wr in the tests proves the data is all there. */
    fflush(stdout);
    _exit(exit_code);
}

