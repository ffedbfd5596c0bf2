/*
 * coll/rdma tuning rules: parse a rules file, look a call up
 * (coll_rdma_rules.h has the format).
 */
#include "coll_rdma_rules.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_CHARS 4096

static void say(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* One bound: a decimal number with an optional K, M or G suffix when
 * `suffixes`; false where s is not one or it overflows `max`. */
static bool parse_bound(const char *s, const char *end, bool suffixes, unsigned long long max,
                        unsigned long long *out)
{
    unsigned long long v = 0, unit = 1;

    if (s == end) {
        return false;
    }
    if (suffixes) {
        switch (end[-1]) {
        case 'k': case 'K': unit = 1ull << 10; --end; break;
        case 'm': case 'M': unit = 1ull << 20; --end; break;
        case 'g': case 'G': unit = 1ull << 30; --end; break;
        default: break;
        }
    }
    if (s == end) {
        return false;
    }
    for (; s < end; ++s) {
        if (*s < '0' || *s > '9' || v > (max - (unsigned long long) (*s - '0')) / 10) {
            return false;
        }
        v = 10 * v + (unsigned long long) (*s - '0');
    }
    if (v > max / unit) {
        return false;
    }
    *out = v * unit;
    return true;
}

/* A range field: N, N-M, N- or * (min to max); false where it is none of these. */
static bool parse_range(const char *field, bool suffixes, unsigned long long min,
                        unsigned long long max, unsigned long long *lo, unsigned long long *hi)
{
    const char *dash = strchr(field, '-'), *end = field + strlen(field);

    if (0 == strcmp(field, "*")) {
        *lo = min;
        *hi = max;
        return true;
    }
    if (NULL == dash) {
        return parse_bound(field, end, suffixes, max, lo) && (*hi = *lo, true);
    }
    if (!parse_bound(field, dash, suffixes, max, lo)) {
        return false;
    }
    if (dash + 1 == end) {
        *hi = max;
        return true;
    }
    return parse_bound(dash + 1, end, suffixes, max, hi);
}

static int lookup(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; ++i) {
        if (NULL != names[i] && 0 == strcmp(name, names[i])) {
            return i;
        }
    }
    return -1;
}

/* The names of the set bits of mask, comma separated, into buf. */
static const char *list(char *buf, size_t len, const char *const *names, int n, uint32_t mask)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && used < len; ++i) {
        if (mask & (1u << i)) {
            used += (size_t) snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i]);
        }
    }
    return buf;
}

/* One rule from the fields of a line; false with err set. */
static bool parse_rule(char **fields, int nfields, int lineno, const coll_rdma_rules_vocab_t *v,
                       coll_rdma_rule_t *r, char *err, size_t errlen)
{
    unsigned long long lo, hi;
    char names[512];
    uint32_t all = 0;

    if (4 != nfields) {
        say(err, errlen, "line %d: %d fields, expected 4 (collective ranks bytes algorithm)",
            lineno, nfields);
        return false;
    }
    r->coll = lookup(fields[0], v->coll_names, v->ncolls);
    if (r->coll < 0) {
        for (int c = 0; c < v->ncolls; ++c) {
            all |= 1u << c;
        }
        say(err, errlen, "line %d: unknown collective '%s' (%s)", lineno, fields[0],
            list(names, sizeof(names), v->coll_names, v->ncolls, all));
        return false;
    }
    if (!parse_range(fields[1], false, 1, INT_MAX, &lo, &hi) || lo < 1 || lo > hi) {
        say(err, errlen,
            "line %d: ranks '%s' is not a range of communicator sizes (N, N-M, N- or *; N >= 1, "
            "M >= N)",
            lineno, fields[1]);
        return false;
    }
    r->min_ranks = (int) lo;
    r->max_ranks = (int) hi;
    if (!parse_range(fields[2], true, 0, SIZE_MAX, &lo, &hi) || lo > hi) {
        say(err, errlen,
            "line %d: bytes '%s' is not a range of sizes (N, N-M, N- or *; K, M, G suffixes; "
            "M >= N)",
            lineno, fields[2]);
        return false;
    }
    r->min_bytes = (size_t) lo;
    r->max_bytes = (size_t) hi;
    r->alg = lookup(fields[3], v->alg_names, v->nalgs);
    if (r->alg < 0 || !(v->valid[r->coll] & (1u << r->alg))) {
        say(err, errlen, "line %d: '%s' is not an algorithm of %s (%s)", lineno, fields[3],
            fields[0], list(names, sizeof(names), v->alg_names, v->nalgs, v->valid[r->coll]));
        return false;
    }
    return true;
}

/* FNV-1a over a value's bytes */
static uint64_t mix(uint64_t h, uint64_t value)
{
    for (int i = 0; i < 8; ++i, value >>= 8) {
        h = (h ^ (value & 0xff)) * 0x100000001b3ull;
    }
    return h;
}

static uint64_t rules_hash(const coll_rdma_rules_t *rules)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (int i = 0; i < rules->n; ++i) {
        const coll_rdma_rule_t *r = &rules->rule[i];
        h = mix(mix(mix(h, (uint64_t) r->coll), (uint64_t) r->alg), (uint64_t) r->min_ranks);
        h = mix(mix(mix(h, (uint64_t) r->max_ranks), r->min_bytes), r->max_bytes);
    }
    return 0 == h ? 1 : h;
}

/* The rules of stream f (NULL: it could not be opened, errno says why). */
static coll_rdma_rules_t *parse_stream(FILE *f, const coll_rdma_rules_vocab_t *vocab, char *err,
                                       size_t errlen)
{
    coll_rdma_rules_t *rules = malloc(sizeof(*rules) + COLL_RDMA_RULES_MAX * sizeof(rules->rule[0]));
    char line[LINE_MAX_CHARS + 1];
    int lineno = 0;
    bool ok = NULL != rules && NULL != f;

    if (NULL == f) {
        say(err, errlen, "cannot open it: %s", strerror(errno));
    } else if (NULL == rules) {
        say(err, errlen, "out of memory");
    } else {
        rules->n = 0;
    }
    while (ok && NULL != fgets(line, sizeof(line), f)) {
        char *fields[5], *save = NULL, *hash;
        int n = 0;

        ++lineno;
        if (NULL == strchr(line, '\n') && !feof(f)) {
            say(err, errlen, "line %d: longer than %d characters", lineno, LINE_MAX_CHARS - 1);
            ok = false;
            break;
        }
        if (NULL != (hash = strchr(line, '#'))) {
            *hash = '\0';
        }
        for (char *t = strtok_r(line, " \t\r\n", &save); NULL != t;
             t = strtok_r(NULL, " \t\r\n", &save)) {
            if (n < 5) {
                fields[n] = t;
            }
            ++n;
        }
        if (0 == n) {
            continue;
        }
        if (rules->n == COLL_RDMA_RULES_MAX) {
            say(err, errlen, "line %d: more than %d rules", lineno, COLL_RDMA_RULES_MAX);
            ok = false;
        } else {
            ok = parse_rule(fields, n, lineno, vocab, &rules->rule[rules->n++], err, errlen);
        }
    }
    if (ok && NULL != f && ferror(f)) {
        say(err, errlen, "line %d: read error", lineno + 1);
        ok = false;
    }
    if (NULL != f) {
        fclose(f);
    }
    if (!ok) {
        free(rules);
        return NULL;
    }
    rules->hash = rules_hash(rules);
    return rules;
}

coll_rdma_rules_t *coll_rdma_rules_parse(const char *path, const coll_rdma_rules_vocab_t *vocab,
                                         char *err, size_t errlen)
{
    return parse_stream(fopen(path, "r"), vocab, err, errlen);
}

coll_rdma_rules_t *coll_rdma_rules_parse_text(const char *text, const coll_rdma_rules_vocab_t *vocab,
                                              char *err, size_t errlen)
{
    return parse_stream(fmemopen((void *) text, strlen(text), "r"), vocab, err, errlen);
}

void coll_rdma_rules_free(coll_rdma_rules_t *rules)
{
    free(rules);
}

int coll_rdma_rules_find(const coll_rdma_rules_t *rules, int coll, int comm_size, size_t bytes,
                         int none)
{
    for (int i = 0; NULL != rules && i < rules->n; ++i) {
        const coll_rdma_rule_t *r = &rules->rule[i];
        if (r->coll == coll && comm_size >= r->min_ranks && comm_size <= r->max_ranks
            && bytes >= r->min_bytes && bytes <= r->max_bytes) {
            return r->alg;
        }
    }
    return none;
}

size_t coll_rdma_rules_reach(const coll_rdma_rules_t *rules, int coll, int alg, int comm_size)
{
    size_t reach = 0;

    for (int i = 0; NULL != rules && i < rules->n; ++i) {
        const coll_rdma_rule_t *r = &rules->rule[i];
        if (r->coll == coll && r->alg == alg && comm_size >= r->min_ranks
            && comm_size <= r->max_ranks && r->max_bytes > reach) {
            reach = r->max_bytes;
        }
    }
    return reach;
}
