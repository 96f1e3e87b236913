/* Pair counts of the label-ranking family, over rows clustered by id.
 *
 * For every positive row j of a run of rows (one id), R_j counts the run's rows scoring at
 * least as high as j and P_j the positive ones among them: the two ranks of _ranking.py
 * (ties take the worst rank, as in scikit-learn). Per run it also sums what the metrics
 * need: P_j / R_j, R_j - P_j, and the largest R_j. With few positives, each positive makes
 * one pass over the run (which vectorizes); with many, the rows at least as high as the
 * lowest positive (the only ones that can count) are sorted and each positive is found by
 * binary search. Both are exact: the same comparisons as the polars plan, on the same float
 * type.
 *
 * The caller (Python) checks the buffers' types and lengths; the GIL is released while
 * counting, so runs can be split between threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

/* Up to this many positives per run, compare directly: O(rows x positives) with no sort. */
#define FEW_POSITIVES 16

#define DEFINE_KERNEL(NAME, T)                                                              \
    static int NAME##_desc(const void *a, const void *b) {                                  \
        T x = *(const T *)a, y = *(const T *)b;                                             \
        return (x < y) - (x > y);                                                           \
    }                                                                                       \
                                                                                            \
    /* How many leading values of v[0..n), sorted descending, are >= x. */                  \
    static int64_t NAME##_at_least(const T *v, int64_t n, T x) {                            \
        int64_t lo = 0, hi = n;                                                             \
        while (lo < hi) {                                                                   \
            int64_t mid = lo + (hi - lo) / 2;                                               \
            if (v[mid] >= x)                                                                \
                lo = mid + 1;                                                               \
            else                                                                            \
                hi = mid;                                                                   \
        }                                                                                   \
        return lo;                                                                          \
    }                                                                                       \
                                                                                            \
    /* Returns 0, or -1 when out of memory. */                                              \
    static int NAME(const int64_t *starts, int64_t runs, const T *score,                    \
                    const uint8_t *truth, int64_t *rank, int64_t *pos_rank, double *prec,   \
                    double *neg_above, double *max_rank) {                                  \
        T *buf = NULL;                                                                      \
        int64_t cap = 0, out = 0;                                                           \
        for (int64_t g = 0; g < runs; g++) {                                                \
            int64_t a = starts[g], b = starts[g + 1], npos = 0;                             \
            prec[g] = neg_above[g] = max_rank[g] = 0.0;                                     \
            /* buf holds the positives, then the candidates and a sorted copy of them. */   \
            if (3 * (b - a) > cap) {                                                        \
                cap = 3 * (b - a);                                                          \
                free(buf);                                                                  \
                buf = malloc((size_t)cap * sizeof(T));                                      \
                if (buf == NULL) return -1;                                                 \
            }                                                                               \
            for (int64_t i = a; i < b; i++)                                                 \
                if (truth[i]) buf[npos++] = score[i];                                       \
            if (npos == 0) continue;                                                        \
            int64_t *r = rank + out, *p = pos_rank + out;                                   \
            const T *pos = buf;                                                             \
            if (npos <= FEW_POSITIVES) {                                                    \
                /* One pass per positive over the run: the compiler vectorizes it. */       \
                for (int64_t k = 0; k < npos; k++) {                                        \
                    T x = pos[k];                                                           \
                    int64_t rk = 0, pk = 0;                                                 \
                    for (int64_t i = a; i < b; i++) {                                       \
                        int64_t c = score[i] >= x;                                          \
                        rk += c;                                                            \
                        pk += c & truth[i];                                                 \
                    }                                                                       \
                    r[k] = rk;                                                              \
                    p[k] = pk;                                                              \
                }                                                                           \
            } else {                                                                        \
                T *cand = buf + npos, *sorted_pos, lowest = pos[0];                         \
                for (int64_t k = 1; k < npos; k++)                                          \
                    if (pos[k] < lowest) lowest = pos[k];                                   \
                int64_t n = 0;                                                              \
                for (int64_t i = a; i < b; i++)                                             \
                    if (score[i] >= lowest) cand[n++] = score[i];                           \
                sorted_pos = cand + n;                                                      \
                for (int64_t k = 0; k < npos; k++) sorted_pos[k] = pos[k];                  \
                qsort(cand, (size_t)n, sizeof(T), NAME##_desc);                             \
                qsort(sorted_pos, (size_t)npos, sizeof(T), NAME##_desc);                    \
                for (int64_t k = 0; k < npos; k++) {                                        \
                    r[k] = NAME##_at_least(cand, n, pos[k]);                                \
                    p[k] = NAME##_at_least(sorted_pos, npos, pos[k]);                       \
                }                                                                           \
            }                                                                               \
            /* The run's sums: precisions, mis-ordered pairs, the worst rank. */           \
            for (int64_t k = 0; k < npos; k++) {                                            \
                prec[g] += (double)p[k] / (double)r[k];                                     \
                neg_above[g] += (double)(r[k] - p[k]);                                      \
                if (r[k] > max_rank[g]) max_rank[g] = (double)r[k];                         \
            }                                                                               \
            out += npos;                                                                    \
        }                                                                                   \
        free(buf);                                                                          \
        return 0;                                                                           \
    }

DEFINE_KERNEL(pair_counts_f64, double)
DEFINE_KERNEL(pair_counts_f32, float)

static PyObject *pair_counts(PyObject *self, PyObject *args) {
    Py_buffer starts, score, truth, rank, pos_rank, prec, neg_above, max_rank;
    int status, is_f32;
    if (!PyArg_ParseTuple(args, "y*y*py*w*w*w*w*w*", &starts, &score, &is_f32, &truth, &rank,
                          &pos_rank, &prec, &neg_above, &max_rank))
        return NULL;
    int64_t runs = starts.len / (Py_ssize_t)sizeof(int64_t) - 1;
    Py_BEGIN_ALLOW_THREADS
    if (is_f32)
        status = pair_counts_f32(starts.buf, runs, score.buf, truth.buf, rank.buf, pos_rank.buf,
                                 prec.buf, neg_above.buf, max_rank.buf);
    else
        status = pair_counts_f64(starts.buf, runs, score.buf, truth.buf, rank.buf, pos_rank.buf,
                                 prec.buf, neg_above.buf, max_rank.buf);
    Py_END_ALLOW_THREADS
    Py_buffer *buffers[] = {&starts, &score, &truth, &rank, &pos_rank, &prec, &neg_above,
                            &max_rank};
    for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++)
        PyBuffer_Release(buffers[i]);
    if (status != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"pair_counts", pair_counts, METH_VARARGS,
     "pair_counts(starts, score, is_f32, truth, rank, pos_rank, prec, neg_above, max_rank):"
     " R and P of each positive, and each run's sums."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
