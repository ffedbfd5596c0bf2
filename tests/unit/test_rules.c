/*
 * Unit test of the tuning rules (ompi-coll-rdma/coll_rdma_rules.c): files
 * that parse and what their lookups give, files that do not and the line
 * their message names, and the default rules compiled into the component.
 * No MPI.
 */
#include "coll_rdma_rules.h"
#include "coll_rdma_names.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BARRIER, BCAST, ALLREDUCE, NCOLLS };
enum { AUTO, FALLBACK, NWAY, READ, RING, NALGS };

static const char *const colls[NCOLLS] = {"barrier", "bcast", "allreduce"};
static const char *const algs[NALGS] = {"auto", "fallback", "nway", "read", "ring"};
static const uint32_t valid[NCOLLS] = {
    1u << AUTO | 1u << FALLBACK | 1u << NWAY | 1u << READ,
    1u << AUTO | 1u << FALLBACK | 1u << READ,
    1u << AUTO | 1u << FALLBACK | 1u << READ | 1u << RING};
static const coll_rdma_rules_vocab_t vocab = {NCOLLS, colls, NALGS, algs, valid};

static int failures, checks;

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        ++checks;                                                                             \
        if (!(cond)) {                                                                        \
            ++failures;                                                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                              \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

static char path[64];

/* Parse `text` from a file; err gets the message where it fails. */
static coll_rdma_rules_t *parse(const char *text, char *err, size_t len)
{
    FILE *f;
    int fd;

    strcpy(path, "/tmp/test_rules.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0 || NULL == (f = fdopen(fd, "w"))) {
        perror("mkstemp");
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    err[0] = '\0';
    coll_rdma_rules_t *r = coll_rdma_rules_parse(path, &vocab, err, len);
    unlink(path);
    return r;
}

static void test_lookups(void)
{
    char err[512];
    coll_rdma_rules_t *r = parse("# a comment line\n"
                                 "\n"
                                 "allreduce 2 0-16K read   # first match wins\n"
                                 "allreduce 2 16K-512k ring\n"
                                 "allreduce 2 512K- fallback\n"
                                 "allreduce 3-8\t* ring\r\n"
                                 "bcast 4- 1M-1M read\n"
                                 "barrier * * nway\n",
                                 err, sizeof(err));

    CHECK(NULL != r, "a valid file did not parse: %s", err);
    if (NULL == r) {
        return;
    }
    CHECK(6 == r->n, "6 rules, got %d", r->n);
    CHECK(0 != r->hash, "hash 0");
    CHECK(READ == coll_rdma_rules_find(r, ALLREDUCE, 2, 0, -1), "0 B at 2 ranks: read");
    CHECK(READ == coll_rdma_rules_find(r, ALLREDUCE, 2, 16384, -1), "16 KiB: the first rule");
    CHECK(RING == coll_rdma_rules_find(r, ALLREDUCE, 2, 16385, -1), "16 KiB + 1: ring");
    CHECK(RING == coll_rdma_rules_find(r, ALLREDUCE, 2, 512 * 1024, -1), "512 KiB: ring");
    CHECK(FALLBACK == coll_rdma_rules_find(r, ALLREDUCE, 2, SIZE_MAX, -1), "huge: fallback");
    CHECK(RING == coll_rdma_rules_find(r, ALLREDUCE, 8, 8, -1), "8 ranks: ring");
    CHECK(-1 == coll_rdma_rules_find(r, ALLREDUCE, 9, 8, -1), "9 ranks: no rule");
    CHECK(-1 == coll_rdma_rules_find(r, ALLREDUCE, 1, 8, -1), "1 rank: no rule");
    CHECK(READ == coll_rdma_rules_find(r, BCAST, 100, 1 << 20, -1), "bcast 1 MiB at 100");
    CHECK(-1 == coll_rdma_rules_find(r, BCAST, 100, (1 << 20) + 1, -1), "bcast 1 MiB + 1");
    CHECK(-1 == coll_rdma_rules_find(r, BCAST, 3, 1 << 20, -1), "bcast at 3 ranks");
    CHECK(NWAY == coll_rdma_rules_find(r, BARRIER, 1, 0, -1), "barrier at 1 rank: * is 1-");
    CHECK(-7 == coll_rdma_rules_find(NULL, BARRIER, 4, 0, -7), "no table: none");
    CHECK(512 * 1024 == coll_rdma_rules_reach(r, ALLREDUCE, RING, 2), "ring at 2: 512 KiB");
    CHECK(SIZE_MAX == coll_rdma_rules_reach(r, ALLREDUCE, RING, 8), "ring at 8: * bytes");
    CHECK(0 == coll_rdma_rules_reach(r, ALLREDUCE, RING, 9), "ring at 9: not named");
    CHECK(16384 == coll_rdma_rules_reach(r, ALLREDUCE, READ, 2), "read at 2: 16 KiB");
    CHECK(1 << 20 == coll_rdma_rules_reach(r, BCAST, READ, 100), "bcast read at 100: 1 MiB");
    CHECK(0 == coll_rdma_rules_reach(r, BCAST, RING, 4), "bcast does not name ring");
    CHECK(0 == coll_rdma_rules_reach(NULL, BCAST, READ, 4), "no table names nothing");

    /* the same rules written otherwise hash alike; another rule does not */
    {
        coll_rdma_rules_t *same = parse("allreduce 2 0-16384 read\n"
                                        "allreduce   2   16384-524288 ring # x\n"
                                        "allreduce 2 524288-18446744073709551615 fallback\n"
                                        "allreduce 3-8 0- ring\n"
                                        "bcast 4- 1048576 read\n"
                                        "barrier 1- 0- nway\n",
                                        err, sizeof(err));
        coll_rdma_rules_t *other = parse("allreduce 2 0-16K read\n", err, sizeof(err));
        CHECK(NULL != same && NULL != other, "variants did not parse: %s", err);
        if (NULL != same && NULL != other) {
            CHECK(same->n == r->n && same->hash == r->hash, "the same rules, another hash");
            CHECK(other->hash != r->hash, "different rules, same hash");
        }
        coll_rdma_rules_free(same);
        coll_rdma_rules_free(other);
    }
    {
        coll_rdma_rules_t *a = parse("bcast 2 * read\n", err, sizeof(err));
        coll_rdma_rules_t *b = parse("# tuned\nbcast\t2\t0-\tread  # again\n", err, sizeof(err));
        CHECK(NULL != a && NULL != b && a->hash == b->hash, "equal rules, different hashes");
        coll_rdma_rules_free(a);
        coll_rdma_rules_free(b);
    }
    {
        coll_rdma_rules_t *empty = parse("# nothing but comments\n\n", err, sizeof(err));
        CHECK(NULL != empty && 0 == empty->n && 0 != empty->hash, "an empty file: no rules");
        coll_rdma_rules_free(empty);
    }
    coll_rdma_rules_free(r);
}

/* `text` must fail with a message containing `want`. */
static void refuse(const char *text, const char *want)
{
    char err[512];
    coll_rdma_rules_t *r = parse(text, err, sizeof(err));

    CHECK(NULL == r, "parsed, expected \"%s\"", want);
    CHECK(NULL != strstr(err, want), "message \"%s\" lacks \"%s\"", err, want);
    coll_rdma_rules_free(r);
}

static void test_errors(void)
{
    char err[512], *big;
    size_t len = 0;

    refuse("bcast 2 0 read\nbcast 2 0\n", "line 2: 3 fields, expected 4");
    refuse("bcast 2 0 read extra\n", "line 1: 5 fields");
    refuse("\n\nreduce 2 0 read\n", "line 3: unknown collective 'reduce' (barrier, bcast, allreduce)");
    refuse("bcast 0 0 read\n", "line 1: ranks '0'");
    refuse("bcast 8-4 0 read\n", "line 1: ranks '8-4'");
    refuse("bcast two 0 read\n", "line 1: ranks 'two'");
    refuse("bcast 2K 0 read\n", "line 1: ranks '2K'");
    refuse("bcast 2 5-3 read\n", "line 1: bytes '5-3'");
    refuse("bcast 2 1X read\n", "line 1: bytes '1X'");
    refuse("bcast 2 -4 read\n", "line 1: bytes '-4'");
    refuse("bcast 2 99999999999999999999 read\n", "line 1: bytes");
    refuse("bcast 2 99999999999G read\n", "line 1: bytes");
    refuse("bcast 2 0 rign\n", "line 1: 'rign' is not an algorithm of bcast (auto, fallback, read)");
    refuse("# ok\nbcast 2 0 ring\n", "line 2: 'ring' is not an algorithm of bcast");
    big = malloc(COLL_RDMA_RULES_MAX * 20 + 64);
    for (int i = 0; i <= COLL_RDMA_RULES_MAX; ++i) {
        len += (size_t) sprintf(big + len, "bcast %d 0 read\n", i + 1);
    }
    refuse(big, "line 1025: more than 1024 rules");
    memset(big, 'x', 5000);
    big[5000] = '\0';
    refuse(big, "line 1: longer than");
    free(big);
    CHECK(NULL == coll_rdma_rules_parse("/nonexistent/rules", &vocab, err, sizeof(err)),
          "a missing file parsed");
    CHECK(NULL != strstr(err, "cannot open it"), "missing file message: %s", err);
}

/* The first rule of `r` that matches, or -1. */
static int first_match(const coll_rdma_rules_t *r, int coll, int ranks, size_t bytes)
{
    for (int i = 0; i < r->n; ++i) {
        const coll_rdma_rule_t *x = &r->rule[i];
        if (x->coll == coll && ranks >= x->min_ranks && ranks <= x->max_ranks
            && bytes >= x->min_bytes && bytes <= x->max_bytes) {
            return i;
        }
    }
    return -1;
}

/*
 * The component's default rules (coll_rdma_defaults.rules, compiled in as
 * the component compiles them) with the component's names: they parse, no
 * two rules overlap (so every rule is reachable: its first corner finds it),
 * the measured region (2-16 ranks; 0-4 MiB, allgather and alltoall 0-1 MiB
 * per block) has no hole, and no rule names an algorithm above the
 * collective's default *_max_bytes (which would never serve it).
 */
static void test_defaults(void)
{
    static const coll_rdma_config_t cfg = COLL_RDMA_CONFIG_DEFAULTS;
    const size_t cap[COLL_RDMA_NCOLLS] = {
        [COLL_RDMA_BARRIER] = 0, [COLL_RDMA_BCAST] = cfg.bcast_max_bytes,
        [COLL_RDMA_ALLREDUCE] = cfg.allreduce_max_bytes,
        [COLL_RDMA_ALLGATHER] = cfg.allgather_max_bytes,
        [COLL_RDMA_ALLTOALL] = cfg.alltoall_max_bytes, [COLL_RDMA_REDUCE] = cfg.reduce_max_bytes};
    char err[512];
    coll_rdma_rules_t *r = coll_rdma_rules_parse_text(coll_rdma_defaults_text,
                                                      coll_rdma_names_vocab(), err, sizeof(err));

    CHECK(NULL != r, "the default rules do not parse: %s", err);
    if (NULL == r) {
        return;
    }
    CHECK(r->n > 0, "no default rules");
    for (int i = 0; i < r->n; ++i) {
        const coll_rdma_rule_t *a = &r->rule[i];
        CHECK(i == first_match(r, a->coll, a->min_ranks, a->min_bytes),
              "default rule %d is shadowed at its first corner", i + 1);
        for (int j = 0; j < i; ++j) {
            const coll_rdma_rule_t *b = &r->rule[j];
            CHECK(!(a->coll == b->coll && a->min_ranks <= b->max_ranks
                    && b->min_ranks <= a->max_ranks && a->min_bytes <= b->max_bytes
                    && b->min_bytes <= a->max_bytes),
                  "default rules %d and %d overlap", j + 1, i + 1);
        }
        CHECK(COLL_RDMA_ALG_FALLBACK == a->alg || COLL_RDMA_ALG_AUTO == a->alg
                  || a->max_bytes <= cap[a->coll],
              "default rule %d names %s above %s_max_bytes (%zu)", i + 1,
              coll_rdma_alg_names[a->alg], coll_rdma_coll_names[a->coll], cap[a->coll]);
    }
    for (int coll = COLL_RDMA_BCAST; coll < COLL_RDMA_NCOLLS; ++coll) {
        size_t top = COLL_RDMA_ALLGATHER == coll || COLL_RDMA_ALLTOALL == coll ? 1 << 20 : 4 << 20;
        for (int ranks = 2; ranks <= 16; ++ranks) {
            for (size_t bytes = 1; bytes <= top; bytes *= 2) {
                CHECK(first_match(r, coll, ranks, bytes) >= 0
                          && first_match(r, coll, ranks, bytes - 1) >= 0
                          && first_match(r, coll, ranks, bytes + 1 < top ? bytes + 1 : top) >= 0,
                      "no default rule for %s at %d ranks near %zu bytes",
                      coll_rdma_coll_names[coll], ranks, bytes);
            }
        }
    }
    coll_rdma_rules_free(r);
}

int main(void)
{
    test_lookups();
    test_errors();
    test_defaults();
    printf("test_rules: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
