/* What one I/O trace event costs the gfapi worker, without any file system in the way (issue 15).
 *
 * Built by bench/trace_event_cost.py against the worker's own source (WORKER_SOURCE, #included with its
 * main renamed), so it measures the worker's real trace_io and writer thread: N calls of trace_io at
 * level io against the same N calls at level off (one relaxed load each), each call with the clock
 * read the TIMED macro makes. The trace goes to a file in TRACE_DIR, written by the worker's own writer
 * thread. CPU time, best of REPS: of the calling thread (what a measuring thread pays per event) and
 * of the whole process (the writer's write()s included). */
#define main worker_main
#include WORKER_SOURCE
#undef main

static double cpu_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void calls(thread_t *t, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t start = now_ns(CLOCK_MONOTONIC);
        enum op op = i % 3 == 0 ? OP_OPEN : i % 3 == 1 ? OP_WRITE : OP_CLOSE; /* as a 1-record file */
        trace_io(t, op, start, 100, op == OP_WRITE ? 4096 : 0);
    }
}

static void drain(void) /* wait until the writer has written every full chunk: its CPU counts */
{
    pthread_mutex_lock(&trace_lock);
    while (trace_full_head) {
        pthread_mutex_unlock(&trace_lock);
        sched_yield();
        pthread_mutex_lock(&trace_lock);
    }
    pthread_mutex_unlock(&trace_lock);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 3000000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    const char *dir = argc > 3 ? argv[3] : "/dev/shm";
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/gftpwb-trace-event-cost-%d.bin", dir, (int)getpid());
    opt.io_trace = path;
    trace_open();
    static thread_t t;
#ifdef HAVE_TRACE_PREPARE
    if (trace_prepare(&t) != 0)
        return 1;
#else
    t.tchunk = trace_chunk_new();
#endif
    double best[2][2] = {{1e9, 1e9}, {1e9, 1e9}}; /* [off, io][thread, process] */
    for (int rep = 0; rep < reps; rep++) {
        for (int level = 0; level < 2; level++) {
            atomic_store(&trace_level, level ? TRACE_IO : TRACE_OFF);
            double th = cpu_s(CLOCK_THREAD_CPUTIME_ID), pr = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
            calls(&t, n);
            drain();
            th = cpu_s(CLOCK_THREAD_CPUTIME_ID) - th;
            pr = cpu_s(CLOCK_PROCESS_CPUTIME_ID) - pr;
            if (th < best[level][0])
                best[level][0] = th;
            if (pr < best[level][1])
                best[level][1] = pr;
        }
        if (ftruncate(trace_fd, 64) != 0 || lseek(trace_fd, 64, SEEK_SET) != 64)
            return 1;
    }
    printf("{\"calls\": %" PRIu64 ", \"off_ns\": %.2f, \"thread_ns_per_event\": %.2f, \"process_ns_per_event\": %.2f}\n",
           n, best[0][1] / (double)n * 1e9, (best[1][0] - best[0][0]) / (double)n * 1e9,
           (best[1][1] - best[0][1]) / (double)n * 1e9);
    unlink(path);
    return 0;
}
