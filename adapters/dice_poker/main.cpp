// main.cpp -- runs one student's SOLUTION (seed 000, dice poker) under the referee.
//
// Each protocol line "op b state d" (docs/protocols/dice-poker.md) is one call of the
// student's AI(op, b, state, d); every line gets exactly one answer line: "1" or "0"
// to a decision (state 0/1), "0" to information (state 2..5).
//
// Usage:  bot [--seed N] [--solution NAME]
//   --seed N         srand(N) before Init (default: $DICE_POKER_SEED, else the referee's
//                    $REFEREE_SEED, else 1)
//   --solution NAME  which SOLUTION to play when the file defines several
//                    (matched against Name, then ShortName)
#include "tournament.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

namespace {

// Plain data only: it is zero-initialised before any constructor runs, so a student's
// global SOLUTION may register itself whatever the order of static initialisation.
struct Entry {
    const char *name;
    const char *shortName;
    void (*init)();
    int (*ai)(int, int, int, int);
};

const int kMaxSolutions = 64;
Entry g_solutions[kMaxSolutions];
int g_count = 0;
int g_overflow = 0;
bool g_started = false;  // registrations after main began (temporaries) are ignored

int g_protoIn = -1;   // the referee's pipe, private to the adapter
int g_protoOut = -1;  // ditto

// The student's stdout goes to stderr and its stdin reads EOF, so that a stray printf,
// cout or scanf can neither corrupt nor steal protocol lines. Runs before any other
// static constructor (priority 101) in case a student's constructor prints.
void isolateStdio() {
    if (g_protoOut >= 0) return;
    g_protoIn = fcntl(0, F_DUPFD_CLOEXEC, 3);
    g_protoOut = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (g_protoIn < 0 || g_protoOut < 0) {
        fprintf(stderr, "adapter: cannot duplicate stdin/stdout: %s\n", strerror(errno));
        _exit(2);
    }
    dup2(2, 1);
    int empty[2];
    if (pipe(empty) == 0) {  // no dependency on /dev/null inside a sandbox
        close(empty[1]);
        dup2(empty[0], 0);
        close(empty[0]);
    }
}

#if defined(__GNUC__)
__attribute__((constructor(101))) void isolateEarly() { isolateStdio(); }
#endif

bool writeAll(int fd, const char *data, size_t size) {
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

// Reads '\n'-terminated lines from the private fd; an over-long line is truncated
// (the referee never sends one) but still counts as one line, keeping us in step.
class LineReader {
public:
    explicit LineReader(int fd) : fd_(fd), start_(0), end_(0) {}

    // Returns false at end of input (a final line without '\n' is still returned).
    bool next(char *out, size_t cap) {
        size_t len = 0;
        for (;;) {
            for (size_t i = start_; i < end_; ++i) {
                if (buf_[i] == '\n') {
                    append(out, cap, &len, i);
                    start_ = i + 1;
                    out[len] = '\0';
                    return true;
                }
            }
            append(out, cap, &len, end_);
            start_ = end_ = 0;
            ssize_t n = read(fd_, buf_, sizeof buf_);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                out[len] = '\0';
                return len > 0;
            }
            end_ = static_cast<size_t>(n);
        }
    }

private:
    void append(char *out, size_t cap, size_t *len, size_t upto) {
        size_t n = upto - start_;
        if (n > cap - 1 - *len) n = cap - 1 - *len;
        memcpy(out + *len, buf_ + start_, n);
        *len += n;
        start_ = upto;
    }

    int fd_;
    size_t start_, end_;
    char buf_[65536];
};

// Parses exactly four integers that fit an int; anything else is rejected.
bool parseLine(const char *line, int *v) {
    const char *p = line;
    for (int k = 0; k < 4; ++k) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno == ERANGE || x < INT_MIN || x > INT_MAX) return false;
        v[k] = static_cast<int>(x);
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
    return *p == '\0';
}

bool parseSeed(const char *text, unsigned *seed) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-') return false;
    *seed = static_cast<unsigned>(x);  // srand takes an unsigned; wider seeds wrap
    return true;
}

int usage(const char *why) {
    fprintf(stderr, "adapter: %s\nusage: bot [--seed N] [--solution NAME]\n", why);
    return 2;
}

const Entry *choose(const char *wanted) {
    for (int i = 0; wanted && i < g_count; ++i)
        if (g_solutions[i].name && strcmp(g_solutions[i].name, wanted) == 0) return &g_solutions[i];
    for (int i = 0; wanted && i < g_count; ++i)
        if (g_solutions[i].shortName && strcmp(g_solutions[i].shortName, wanted) == 0)
            return &g_solutions[i];
    if (!wanted && g_count == 1) return &g_solutions[0];
    if (g_count == 0)
        fprintf(stderr, "adapter: no SOLUTION defined (write `SOLUTION name = {\"Name\", \"Short\", Init, AI};`)\n");
    else if (wanted)
        fprintf(stderr, "adapter: no SOLUTION named \"%s\"; defined:\n", wanted);
    else
        fprintf(stderr, "adapter: %d SOLUTIONs defined; choose one with --solution NAME:\n", g_count);
    for (int i = 0; i < g_count; ++i)
        fprintf(stderr, "  %s (%s)\n", g_solutions[i].name ? g_solutions[i].name : "?",
                g_solutions[i].shortName ? g_solutions[i].shortName : "?");
    return 0;
}

}  // namespace

void tournament_register_solution(const SOLUTION &solution) {
    if (g_started) return;
    if (g_count == kMaxSolutions) {
        ++g_overflow;
        return;
    }
    Entry e = {solution.Name, solution.ShortName, solution.Init, solution.AI};
    g_solutions[g_count++] = e;
}

int main(int argc, char **argv) {
    isolateStdio();  // a no-op when the early constructor already ran
    g_started = true;
    signal(SIGPIPE, SIG_IGN);  // a closed pipe is an exit, not a signal death

    unsigned seed = 1;  // what C's rand() uses when srand is never called
    // The referee's seed for this bot (its match's, or its tournament's), unless the
    // organiser names one: $DICE_POKER_SEED, then --seed.
    const char *fromReferee = getenv("REFEREE_SEED");
    if (fromReferee && *fromReferee && !parseSeed(fromReferee, &seed)) return usage("REFEREE_SEED is not a seed");
    const char *fromEnv = getenv("DICE_POKER_SEED");
    if (fromEnv && *fromEnv && !parseSeed(fromEnv, &seed)) return usage("DICE_POKER_SEED is not a seed");
    const char *wanted = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            if (!parseSeed(argv[++i], &seed)) return usage("--seed takes a non-negative integer");
        } else if (strncmp(argv[i], "--seed=", 7) == 0) {
            if (!parseSeed(argv[i] + 7, &seed)) return usage("--seed takes a non-negative integer");
        } else if (strcmp(argv[i], "--solution") == 0 && i + 1 < argc) {
            wanted = argv[++i];
        } else if (strncmp(argv[i], "--solution=", 11) == 0) {
            wanted = argv[i] + 11;
        } else {
            return usage("unknown argument");
        }
    }

    if (g_overflow) fprintf(stderr, "adapter: more than %d SOLUTIONs; the rest are ignored\n", kMaxSolutions);
    const Entry *sol = choose(wanted);
    if (!sol) return 2;
    if (!sol->ai) {
        fprintf(stderr, "adapter: SOLUTION \"%s\" has no AI function\n", sol->name ? sol->name : "?");
        return 2;
    }
    if (sol->shortName && strlen(sol->shortName) > 7)
        fprintf(stderr, "adapter: warning: ShortName \"%s\" is longer than 7 characters\n", sol->shortName);

    fprintf(stderr, "adapter: playing %s (%s), srand(%u)\n", sol->name ? sol->name : "?",
            sol->shortName ? sol->shortName : "?", seed);
    // The seed: "Do not call srand (the seed setting function), that is our responsibility."
    srand(seed);
    // The seed: Init "will be called only once at the very beginning of the tournament";
    // one process lives for the whole tournament (docs/tournaments.md), so once here.
    if (sol->init) sol->init();
    fflush(stdout);  // the student's output (now stderr) in order, even before a crash

    LineReader reader(g_protoIn);
    char line[4096];
    int v[4];
    while (reader.next(line, sizeof line)) {
        int answer = 0;
        if (parseLine(line, v)) {
            int r = sol->ai(v[0], v[1], v[2], v[3]);
            fflush(stdout);
            // Decisions: zero folds, non-zero raises/calls. Information lines (state >= 2)
            // still need one line; its value is ignored, the protocol asks for 0.
            answer = (v[2] == 0 || v[2] == 1) && r != 0;
        } else {
            fprintf(stderr, "adapter: not a protocol line, answered 0: %s\n", line);
        }
        if (!writeAll(g_protoOut, answer ? "1\n" : "0\n", 2)) break;  // the referee is gone
    }
    fflush(stdout);
    return 0;
}
