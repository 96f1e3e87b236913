/* Passes over rows clustered by id: each id's rows are one run.
 *
 * pair_counts: the label-ranking family's pair counts. For every positive row j of a run,
 * R_j counts the run's rows scoring at least as high as j and P_j the positive ones among
 * them: the two ranks of _ranking.py (ties take the worst rank, as in scikit-learn). Per
 * run it also sums what the metrics need: P_j / R_j, R_j - P_j, and the largest R_j. With
 * few positives, each positive makes one pass over the run (which vectorizes); with many,
 * the rows at least as high as the lowest positive (the only ones that can count) are
 * sorted and each positive is found by binary search. Both are exact: the same comparisons
 * as the polars plan, on the same float type.
 *
 * run_sums: the counts behind the data checks (see below).
 *
 * change_rows: where a key column's value changes, which splits the rows into runs.
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

/* run_sums: per run (one id), its positives and the wrapping sum of its rows' class
 * hashes, the two counts of the data checks; and per (segment, class), where a segment is
 * a stretch of runs of one group, the rows, and with pred the positives, the predicted
 * positives and the true positives (the confusion counts), each in its own plane of
 * class_rows. Classes are looked up as value - low in hash_of, which the caller built over
 * [low, highest class] with polars' own hash, so that the sums are those of the polars
 * plan.
 */
#define DEFINE_RUN_SUMS(NAME, C)                                                            \
    static void NAME(const int64_t *starts, int64_t runs, const uint8_t *truth,            \
                     const uint8_t *pred, const C *cls, int64_t low,                       \
                     const uint64_t *hash_of, int64_t n_codes, const int64_t *segment,     \
                     int64_t *npos, uint64_t *hash_sum, int64_t *class_rows,               \
                     int64_t plane) {                                                      \
        for (int64_t g = 0; g < runs; g++) {                                                \
            int64_t a = starts[g], b = starts[g + 1], p = 0;                                \
            uint64_t h = 0;                                                                 \
            for (int64_t i = a; i < b; i++) {                                               \
                p += truth[i];                                                              \
                h += hash_of[(int64_t)cls[i] - low];                                        \
            }                                                                               \
            npos[g] = p;                                                                    \
            hash_sum[g] = h;                                                                \
            if (class_rows == NULL) continue;                                               \
            int64_t *rows = class_rows + segment[g] * n_codes;                              \
            if (pred == NULL) {                                                             \
                for (int64_t i = a; i < b; i++) rows[(int64_t)cls[i] - low]++;             \
                continue;                                                                   \
            }                                                                               \
            int64_t *pos = rows + plane, *predicted = rows + 2 * plane;                     \
            int64_t *both = rows + 3 * plane;                                               \
            for (int64_t i = a; i < b; i++) {                                               \
                int64_t code = (int64_t)cls[i] - low;                                       \
                rows[code]++;                                                               \
                pos[code] += truth[i];                                                      \
                predicted[code] += pred[i];                                                 \
                both[code] += truth[i] & pred[i];                                           \
            }                                                                               \
        }                                                                                   \
    }

DEFINE_RUN_SUMS(run_sums_i8, int8_t)
DEFINE_RUN_SUMS(run_sums_i16, int16_t)
DEFINE_RUN_SUMS(run_sums_i32, int32_t)
DEFINE_RUN_SUMS(run_sums_i64, int64_t)
DEFINE_RUN_SUMS(run_sums_u8, uint8_t)
DEFINE_RUN_SUMS(run_sums_u16, uint16_t)
DEFINE_RUN_SUMS(run_sums_u32, uint32_t)

static PyObject *run_sums(PyObject *self, PyObject *args) {
    Py_buffer starts, truth, pred, cls, hash_of, segment, npos, hash_sum, class_rows;
    int kind; /* the classes' type: the tag of _kernel._CLASS_KINDS ('l': int64 everywhere) */
    long long low;
    if (!PyArg_ParseTuple(args, "y*y*y*y*CLy*y*w*w*w*", &starts, &truth, &pred, &cls, &kind,
                          &low, &hash_of, &segment, &npos, &hash_sum, &class_rows))
        return NULL;
    int64_t runs = starts.len / (Py_ssize_t)sizeof(int64_t) - 1;
    int64_t n_codes = hash_of.len / (Py_ssize_t)sizeof(uint64_t);
    /* One plane of counts (rows), or four with pred (rows, positives, predicted, both). */
    int64_t plane = class_rows.len / (Py_ssize_t)sizeof(int64_t) / (pred.len ? 4 : 1);
    int known = 1;
    Py_BEGIN_ALLOW_THREADS
#define RUN(NAME, C)                                                                        \
    NAME(starts.buf, runs, truth.buf, pred.len ? pred.buf : NULL, (const C *)cls.buf,       \
         (int64_t)low, hash_of.buf, n_codes, segment.buf, npos.buf, hash_sum.buf,          \
         class_rows.len ? class_rows.buf : NULL, plane)
    switch (kind) {
        case 'b': RUN(run_sums_i8, int8_t); break;
        case 'h': RUN(run_sums_i16, int16_t); break;
        case 'i': RUN(run_sums_i32, int32_t); break;
        case 'l': RUN(run_sums_i64, int64_t); break;
        case 'B': RUN(run_sums_u8, uint8_t); break;
        case 'H': RUN(run_sums_u16, uint16_t); break;
        case 'I': RUN(run_sums_u32, uint32_t); break;
        default: known = 0;
    }
#undef RUN
    Py_END_ALLOW_THREADS
    Py_buffer *buffers[] = {&starts, &truth, &pred, &cls, &hash_of, &segment, &npos, &hash_sum,
                            &class_rows};
    for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++)
        PyBuffer_Release(buffers[i]);
    if (!known) return PyErr_Format(PyExc_TypeError, "run_sums: class type %c", kind);
    Py_RETURN_NONE;
}

/* change_rows: the rows i >= 1 of a column's chunk whose value differs from row i - 1's,
 * ascending; values are compared as bits, `width` bytes each (1, 2, 4, 8, or 16 for Arrow
 * string views). Blocks of rows without a change are skipped after one vectorized check.
 * out needs room for a row per value; only the rows written touch its memory.
 */
#define CHANGE_BLOCK 32
#define DEFINE_CHANGE_ROWS(NAME, T, DIFFERS)                                                \
    static int64_t NAME(const T *v, int64_t n, int64_t *out) {                              \
        int64_t k = 0, i = 1;                                                               \
        for (; i + CHANGE_BLOCK <= n; i += CHANGE_BLOCK) {                                  \
            int any = 0;                                                                    \
            for (int j = 0; j < CHANGE_BLOCK; j++) any |= DIFFERS(v[i + j], v[i + j - 1]);  \
            if (!any) continue;                                                             \
            for (int j = 0; j < CHANGE_BLOCK; j++) {                                        \
                out[k] = i + j; /* written always, kept when it differs: no branch */       \
                k += DIFFERS(v[i + j], v[i + j - 1]);                                       \
            }                                                                               \
        }                                                                                   \
        for (; i < n; i++) {                                                                \
            out[k] = i;                                                                     \
            k += DIFFERS(v[i], v[i - 1]);                                                   \
        }                                                                                   \
        return k;                                                                           \
    }

typedef struct {
    uint64_t low, high;
} view16;
#define SCALAR_DIFFERS(a, b) ((a) != (b))
#define VIEW_DIFFERS(a, b) (((a).low != (b).low) | ((a).high != (b).high))
DEFINE_CHANGE_ROWS(change_rows_1, uint8_t, SCALAR_DIFFERS)
DEFINE_CHANGE_ROWS(change_rows_2, uint16_t, SCALAR_DIFFERS)
DEFINE_CHANGE_ROWS(change_rows_4, uint32_t, SCALAR_DIFFERS)
DEFINE_CHANGE_ROWS(change_rows_8, uint64_t, SCALAR_DIFFERS)
DEFINE_CHANGE_ROWS(change_rows_16, view16, VIEW_DIFFERS)

static PyObject *change_rows(PyObject *self, PyObject *args) {
    Py_buffer values, out;
    int width;
    if (!PyArg_ParseTuple(args, "y*iw*", &values, &width, &out)) return NULL;
    int64_t n = width > 0 ? values.len / width : 0, found = -1;
    if (width > 0 && out.len / (Py_ssize_t)sizeof(int64_t) >= n) {
        Py_BEGIN_ALLOW_THREADS
        switch (width) {
            case 1: found = change_rows_1(values.buf, n, out.buf); break;
            case 2: found = change_rows_2(values.buf, n, out.buf); break;
            case 4: found = change_rows_4(values.buf, n, out.buf); break;
            case 8: found = change_rows_8(values.buf, n, out.buf); break;
            case 16: found = change_rows_16(values.buf, n, out.buf); break;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&values);
    PyBuffer_Release(&out);
    if (found < 0) return PyErr_Format(PyExc_ValueError, "change_rows: width %d", width);
    return PyLong_FromLongLong(found);
}

static PyMethodDef methods[] = {
    {"pair_counts", pair_counts, METH_VARARGS,
     "pair_counts(starts, score, is_f32, truth, rank, pos_rank, prec, neg_above, max_rank):"
     " R and P of each positive, and each run's sums."},
    {"run_sums", run_sums, METH_VARARGS,
     "run_sums(starts, truth, pred, classes, kind, low, hash_of, segment, npos, hash_sum,"
     " class_rows): each run's positives and class-hash sum, counts per segment and class."},
    {"change_rows", change_rows, METH_VARARGS,
     "change_rows(values, width, out): the rows whose value differs from the row before's,"
     " written to out; returns how many."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
