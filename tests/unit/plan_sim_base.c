/*
 * Part of the plan simulator (plan_sim.c says what it checks): the names
 * of kinds, collectives and algorithms, small helpers (hashes, the
 * simulator's random stream, inputs, elements, failures), the map of last
 * accesses and reader counts, and the slots of the windows.
 */
#include "plan_sim_int.h"

const char *const kind_names[] = {"POST",     "WAIT",      "WAIT_PEER", "WAIT_ALL",
                                         "FOLD_ALL", "COPY",      "REDUCE",    "CREDIT",
                                         "PUBLISH",  "FLUSH",     "RING_SEND", "RING_RECV",
                                         "RING_ACK", "PACK",      "UNPACK"};
const char *const coll_names[] = {"barrier",   "bcast",    "allreduce",
                                         "allgather", "alltoall", "reduce"};
const char *const alg_names[] = {"auto", "fallback", "nway",   "knomial", "ktree",
                                        "pairwise", "bruck", "ring", "direct",  "read",
                                        "rsag", "ssp", "hier", "nport"};

const char *sim_coll_name(int coll)
{
    return coll_names[coll];
}

const char *sim_alg_name(int alg)
{
    return alg_names[alg];
}

/* ---- small helpers ---------------------------------------------------------------- */

uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return mix64(mix64(mix64(mix64(a) ^ b) ^ c) ^ d);
}

uint64_t rnd(sim_t *S)
{
    return S->rng = mix64(S->rng);
}

/* Inputs: element e of rank r in call i, byte k of rank r's data in call i. */
elem_t in_elem(int i, int r, size_t e)
{
    return (elem_t){hash4(i, r, e, 1), hash4(i, r, e, 2)};
}

/* Bytes [from, from + n) of rank r's data in call i (tag 3), or of its garbage (tag 4). */
void data_bytes(char *dst, int i, int r, size_t from, size_t n, int tag)
{
    uint64_t w = hash4(i, r, from / 8, tag);

    for (size_t k = from; k < from + n; ++k) {
        if (0 == k % 8) {
            w = hash4(i, r, k / 8, tag);
        }
        dst[k - from] = (char) (w >> (8 * (k % 8)));
    }
}

/* dst = src op dst: the sum, and a hash that tells the operands' order and association. */
elem_t combine(elem_t src, elem_t dst)
{
    return (elem_t){src.s + dst.s, mix64(src.h ^ mix64(dst.h + 0x632be59bd9b4e019ULL))};
}

elem_t load_elem(const char *p)
{
    elem_t e;
    memcpy(&e, p, sizeof(e));
    return e;
}

void store_elem(char *p, elem_t e)
{
    memcpy(p, &e, sizeof(e));
}

bool reached(uint64_t a, uint64_t b)
{
    return coll_rdma_seq_reached(a, b);
}

sop_t *sop(sim_t *S, int q, int i)
{
    int j = S->sc->calls[i].replay_of;
    return &S->ops[(size_t) q * S->ncalls + (j >= 0 ? j : i)];
}

meta_t *meta(sim_t *S, int owner, int slot)
{
    return &S->meta[(size_t) owner * S->nwords + slot];
}

uint64_t word_at(sim_t *S, int owner, size_t off)
{
    uint64_t w;
    memcpy(&w, S->r[owner].win.base + off, sizeof(w));
    return w;
}

void fail(sim_t *S, const char *fmt, ...)
{
    size_t n = 0;
    va_list ap;

    if (S->q >= 0) {
        const sim_call_t *c = &S->sc->calls[S->call];
        const coll_rdma_prog_t *p = &sop(S, S->q, S->call)->op.prog;
        int len = snprintf(S->err, S->errlen, "rank %d, call %d (%s %s), action %d of %d %s: ",
                           S->q, S->call, coll_names[c->coll], alg_names[c->alg], S->pc, p->n,
                           S->pc < p->n ? kind_names[p->acts[S->pc].kind] : "(end)");
        n = len < 0 ? 0 : ((size_t) len < S->errlen ? (size_t) len : S->errlen - 1);
    }
    va_start(ap, fmt);
    vsnprintf(S->err + n, S->errlen - n, fmt, ap);
    va_end(ap);
    longjmp(S->fail, 1);
}

void *xcalloc(sim_t *S, size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size > 0 ? size : 1);
    if (NULL == p) {
        fail(S, "out of memory");
    }
    return p;
}

/* ---- the map: (a, b) -> value, a != 0 ------------------------------------------------ */

int64_t *map_find(sim_t *S, uint64_t a, uint64_t b, bool insert)
{
    size_t i;

    if (insert && 2 * (S->mapn + 1) > S->mapcap) {
        hent_t *old = S->map;
        size_t oldcap = S->mapcap;
        S->mapcap = oldcap ? 2 * oldcap : 1024;
        S->map = xcalloc(S, S->mapcap, sizeof(hent_t));
        S->mapn = 0;
        for (size_t k = 0; k < oldcap; ++k) {
            if (0 != old[k].a) {
                *map_find(S, old[k].a, old[k].b, true) = old[k].v;
            }
        }
        free(old);
    }
    if (0 == S->mapcap) {
        return NULL;
    }
    for (i = mix64(a ^ mix64(b)) & (S->mapcap - 1); 0 != S->map[i].a;
         i = (i + 1) & (S->mapcap - 1)) {
        if (S->map[i].a == a && S->map[i].b == b) {
            return &S->map[i].v;
        }
    }
    if (!insert) {
        return NULL;
    }
    S->map[i].a = a;
    S->map[i].b = b;
    S->map[i].v = 0;
    ++S->mapn;
    return &S->map[i].v;
}

/* Keys: rank q's last access of (owner, slot), or with q = -1 the reader count. */
uint64_t key(int q, int owner, int slot)
{
    return ((uint64_t) (q + 2) << 48) | ((uint64_t) owner << 32) | (uint32_t) slot;
}

int64_t pos(int call, int pc, int sub)
{
    return ((int64_t) call << 48) | ((int64_t) pc << 16) | sub;
}

/* ---- slots ----------------------------------------------------------------------------- */

static int slot_index(sim_t *S, size_t off)
{
    int lo = 0, hi = S->nwords - 1;

    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (S->words[mid] == off) {
            return mid;
        }
        if (S->words[mid] < off) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

/* Payload bytes before the next word (or the window's end). */
size_t slot_room(sim_t *S, int slot)
{
    size_t end = slot + 1 < S->nwords ? S->words[slot + 1] : S->r[0].win.size;
    return end - S->words[slot] - S->heads[slot];
}

int slot_at(sim_t *S, size_t off)
{
    int slot = slot_index(S, off);
    if (slot < 0) {
        fail(S, "names window offset %zu, which is no slot", off);
    }
    return slot;
}

/* The slot whose word is at byte off, named by a plan as `geom`: its payload must lie
 * where the region puts it (one-line slots or not), or fail. */
int slot_geom_at(sim_t *S, const coll_rdma_slot_t *geom, size_t off)
{
    int slot = slot_at(S, off);
    if (coll_rdma_slot_head(geom) != S->heads[slot]) {
        fail(S, "names the slot at %zu with its payload %zu bytes after the word; the region "
             "puts it %zu bytes after", off, coll_rdma_slot_head(geom), S->heads[slot]);
    }
    return slot;
}

/* The slot a buffer names at instance seq (ring: message ring_m); false for other bases. */
bool buf_slot(sim_t *S, int q, const coll_rdma_buf_t *b, uint64_t seq, uint64_t ring_m,
              int *owner, int *slot, uint64_t *word)
{
    const coll_rdma_window_t *win = &S->r[q].win;

    switch (b->base) {
    case COLL_RDMA_BUF_SLOT:
        *owner = q;
        *slot = slot_geom_at(S, &b->slot, coll_rdma_slot_off(win, &b->slot, seq));
        *word = seq;
        return true;
    case COLL_RDMA_BUF_PEER_SLOT:
        if (b->peer < 0 || b->peer >= S->P) {
            fail(S, "names the slot of rank %d", b->peer);
        }
        *owner = b->peer;
        *slot = slot_geom_at(S, &b->slot, coll_rdma_slot_off(win, &b->slot, seq));
        *word = seq;
        return true;
    case COLL_RDMA_BUF_RING:
        *owner = q;
        *slot = slot_at(S, coll_rdma_ring_slot(win, ring_m));
        *word = ring_m;
        return true;
    default:
        return false;
    }
}
