// The C shim over Google Benchmark (see shim.h).
#include "shim.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

struct cikb_state {
    benchmark::State *st;
    void *user;
};

struct cikb_bench {
    benchmark::internal::Benchmark *b;
};

extern "C" {

int64_t cikb_batch(cikb_state *s)
{
    // One batch of the whole run: KeepRunningBatch(max_iterations) returns
    // true once (starting the clock), then false (stopping it).
    int64_t n = s->st->max_iterations;
    if (n < 1) n = 1;
    return s->st->KeepRunningBatch(n) ? n : 0;
}

int cikb_keep_running_batch(cikb_state *s, int64_t n) { return s->st->KeepRunningBatch(n < 1 ? 1 : n) ? 1 : 0; }

int64_t cikb_iterations(const cikb_state *s) { return s->st->iterations(); }

void cikb_set_iteration_time(cikb_state *s, double seconds) { s->st->SetIterationTime(seconds); }

void cikb_pause_timing(cikb_state *s) { s->st->PauseTiming(); }
void cikb_resume_timing(cikb_state *s) { s->st->ResumeTiming(); }

void cikb_skip_with_error(cikb_state *s, const char *message) { s->st->SkipWithError(message); }

void cikb_set_label(cikb_state *s, const char *label) { s->st->SetLabel(label); }

int64_t cikb_range(const cikb_state *s, int i) { return s->st->range(static_cast<std::size_t>(i)); }
int cikb_thread_index(const cikb_state *s) { return s->st->thread_index(); }
int cikb_thread_count(const cikb_state *s) { return s->st->threads(); }
void *cikb_user(const cikb_state *s) { return s->user; }

void cikb_counter(cikb_state *s, const char *name, double value, cikb_counter_kind kind)
{
    benchmark::Counter::Flags f = benchmark::Counter::kDefaults;
    switch (kind) {
    case CIKB_PLAIN: f = benchmark::Counter::kDefaults; break;
    case CIKB_RATE: f = benchmark::Counter::kIsRate; break;
    case CIKB_AVERAGE: f = benchmark::Counter::kAvgIterations; break;
    case CIKB_AVERAGE_RATE: f = benchmark::Counter::kAvgIterationsRate; break;
    case CIKB_INVERSE_RATE: f = benchmark::Counter::kIsRate | benchmark::Counter::kInvert; break;
    }
    s->st->counters[name] = benchmark::Counter(value, f);
}

cikb_bench *cikb_register(const char *name, cikb_fn fn, void *user)
{
    auto *h = new cikb_bench; // lives as long as the registered benchmark
    h->b = benchmark::RegisterBenchmark(name, [fn, user](benchmark::State &st) {
        cikb_state s{&st, user};
        fn(&s);
    });
    return h;
}

void cikb_args(cikb_bench *b, const int64_t *args, int count)
{
    b->b->Args(std::vector<int64_t>(args, args + count));
}

void cikb_arg_names(cikb_bench *b, const char *const *names, int count)
{
    std::vector<std::string> v;
    for (int i = 0; i < count; ++i) v.emplace_back(names[i]);
    b->b->ArgNames(v);
}

void cikb_threads(cikb_bench *b, int threads) { b->b->Threads(threads); }
void cikb_use_manual_time(cikb_bench *b) { b->b->UseManualTime(); }
void cikb_use_real_time(cikb_bench *b) { b->b->UseRealTime(); }
void cikb_min_time(cikb_bench *b, double seconds) { b->b->MinTime(seconds); }
void cikb_fixed_iterations(cikb_bench *b, int64_t iterations) { b->b->Iterations(iterations); }

void cikb_time_unit(cikb_bench *b, char unit)
{
    switch (unit) {
    case 'n': b->b->Unit(benchmark::kNanosecond); break;
    case 'u': b->b->Unit(benchmark::kMicrosecond); break;
    case 'm': b->b->Unit(benchmark::kMillisecond); break;
    default: b->b->Unit(benchmark::kSecond); break;
    }
}

void cikb_add_context(const char *key, const char *value) { benchmark::AddCustomContext(key, value); }

int cikb_main(int argc, char **argv, void (*register_fn)(int quick), const char *usage, double min_time)
{
    int quick = 0, has_min_time = 0, help = 0;
    std::vector<char *> args;
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::strcmp(argv[i], "--quick") == 0) {
            quick = 1;
            continue;
        }
        if (std::strncmp(argv[i], "--benchmark_min_time", 20) == 0) has_min_time = 1;
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) help = 1;
        args.push_back(argv[i]);
    }
    static char min_time_flag[64];
    if (quick) min_time = 0.01;
    if (!has_min_time && min_time > 0) {
        std::snprintf(min_time_flag, sizeof min_time_flag, "--benchmark_min_time=%g", min_time);
        args.push_back(min_time_flag);
    }
    if (help && usage) std::fputs(usage, stdout);
    int n = static_cast<int>(args.size());
    args.push_back(nullptr);

    register_fn(quick);
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // extern "C"
