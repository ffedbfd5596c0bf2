/*
 * coll_bench's MPI_T readings (bench_mpit.h).
 */
#include "bench_mpit.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

int mpit_cvar_int(const char *want)
{
    int provided, num = 0, value = -1, all = -1;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS) {
        if (MPI_T_cvar_get_num(&num) != MPI_SUCCESS) num = 0;
        for (int i = 0; i < num && value < 0; i++) {
            char name[256];
            int nlen = sizeof(name), verb, bind, scope, count;
            MPI_Datatype dt;
            MPI_T_enum et;
            MPI_T_cvar_handle h;
            if (MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &et, NULL, NULL, &bind, &scope) != MPI_SUCCESS ||
                strcmp(name, want) != 0)
                continue;
            if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS) continue;
            union { int i; unsigned u; long l; unsigned long ul; long long ll; char pad[64]; } v;
            memset(&v, 0, sizeof(v));
            if (count == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS) {
                long long x = -1;
                if (dt == MPI_INT) x = v.i;
                else if (dt == MPI_UNSIGNED) x = v.u;
                else if (dt == MPI_LONG) x = v.l;
                else if (dt == MPI_UNSIGNED_LONG) x = (long long)v.ul;
                else if (dt == MPI_LONG_LONG) x = v.ll;
                value = x < 0 ? -1 : x > 1000000000 ? 1000000000 : (int)x;
            }
            MPI_T_cvar_handle_free(&h);
        }
        MPI_T_finalize();
    }
    MPI_Allreduce(&value, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

static int served_open;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle;

int mpit_served_open(const char *coll)
{
    char want[128];
    int provided, num = 0;

    snprintf(want, sizeof(want), "coll_rdma_%s_served_calls", coll);
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return -1;
    if (MPI_T_pvar_get_num(&num) != MPI_SUCCESS) num = 0;
    for (int i = 0; i < num; i++) {
        char name[256];
        int nlen = sizeof(name), verb, cls, bind, ro, cont, atomic, count;
        MPI_Datatype dt;
        MPI_T_enum et;
        if (MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &et, NULL, NULL, &bind, &ro, &cont,
                                &atomic) != MPI_SUCCESS || strcmp(name, want) != 0 ||
            dt != MPI_UNSIGNED_LONG_LONG)
            continue;
        if (MPI_T_pvar_session_create(&session) != MPI_SUCCESS) break;
        if (MPI_T_pvar_handle_alloc(session, i, NULL, &handle, &count) != MPI_SUCCESS || count != 1) {
            MPI_T_pvar_session_free(&session);
            break;
        }
        served_open = 1;
        return 0;
    }
    MPI_T_finalize();
    return -1;
}

long long mpit_served(void)
{
    unsigned long long v;
    if (!served_open || MPI_T_pvar_read(session, handle, &v) != MPI_SUCCESS) return -1;
    return (long long)v;
}

void mpit_served_close(void)
{
    if (!served_open) return;
    MPI_T_pvar_handle_free(session, &handle);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    served_open = 0;
}
