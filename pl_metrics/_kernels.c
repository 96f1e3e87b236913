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
 * ndcg_sums: each run's discounted cumulative gain, ties averaged, and its ideal one.
 *
 * curve_counts: the curves table (positive and negative rows per class and score).
 *
 * curve_areas: the sums behind ROC AUC and average precision from a sorted curves table.
 *
 * change_rows: where a key column's value changes, which splits the rows into runs (and
 * whether the runs' ids increase).
 *
 * The caller (Python) checks the buffers' types and lengths; the GIL is released while
 * counting, so runs can be split between threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The pair counts' and change rows' loops get a second, AVX2 build, which GCC picks per
 * machine when the module loads (x86-64 glibc: ifuncs): twice as wide as baseline SSE2, and
 * with 64-bit compares (SSE2 has none), they ran 2-3x faster (change rows of 5M int64 ids:
 * 12.6 ms to 5.7 ms). The other kernels' loops ran no faster with it: left alone. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define WIDE_SIMD __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_SIMD
#endif

/* Whether v[0, n) never falls. */
static int rising(const int64_t *v, int64_t n) {
    for (int64_t i = 1; i < n; i++)
        if (v[i] < v[i - 1]) return 0;
    return 1;
}

/* Whether each column (its buffer, and the bytes of one value) has a row for every row of
 * the runs: they are rows starts[0] - base to starts[runs] - base. */
static int rows_fit(const Py_buffer *starts, int64_t base, const Py_buffer *const *columns,
                    const Py_ssize_t *sizes, size_t n) {
    int64_t runs = starts->len / (Py_ssize_t)sizeof(int64_t) - 1;
    int64_t rows = runs < 0 ? 0 : ((const int64_t *)starts->buf)[runs] - base;
    if (runs >= 0 && ((const int64_t *)starts->buf)[0] < base) return 0;
    for (size_t i = 0; i < n; i++)
        if (columns[i]->len / sizes[i] < rows) return 0;
    return 1;
}

/* The segments of consecutive runs, read from each segment's first run (ascending): no
 * array of a segment per run to fill and read (fresh memory costs more than the counting).
 * seg_start gives the cursor at run `run`, seg_at moves it on to a later run. */
typedef struct {
    const int64_t *firsts;
    int64_t n, seg, next; /* the segments; the run's; the next one's first run */
    const int64_t *of_run; /* or each run's group, numbered (see run_sums): NULL if not */
} seg_cursor;

static inline void seg_advance(seg_cursor *c) {
    c->seg++;
    c->next = c->seg + 1 < c->n ? c->firsts[c->seg + 1] : INT64_MAX;
}

static seg_cursor seg_start(const Py_buffer *firsts, int64_t run) {
    seg_cursor c = {firsts->buf, firsts->len / (Py_ssize_t)sizeof(int64_t), -1, 0, NULL};
    int64_t lo = 0, hi = c.n; /* the segments whose first run is at most run: [0, lo) */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c.firsts[mid] <= run)
            lo = mid + 1;
        else
            hi = mid;
    }
    c.seg = lo - 2;
    seg_advance(&c);
    return c;
}

static inline int64_t seg_at(seg_cursor *c, int64_t run) {
    if (c->of_run != NULL) return c->of_run[run];
    while (run >= c->next) seg_advance(c);
    return c->seg;
}

/* The cursor of runs whose groups are numbered, each run's in of_run (every run's, from
 * run 0), n_groups of them: the tables are per group, whatever order the runs come in. */
static seg_cursor seg_of_groups(const Py_buffer *of_run, int64_t n_groups) {
    seg_cursor c = {NULL, n_groups, 0, INT64_MAX, of_run->buf};
    return c;
}

/* Whether a table of `per_segment` values of `size` bytes for each segment of the cursor
 * fits in buffer (or it is empty: not asked for), and the first run has a segment. */
static int segments_fit(const seg_cursor *c, const Py_buffer *buffer, Py_ssize_t per_segment) {
    if (!buffer->len) return 1;
    return c->seg >= 0 && buffer->len / per_segment >= c->n;
}

/* The bytes of a class value of kind (a tag of _kernel._CLASS_KINDS). */
static Py_ssize_t class_width(int kind) {
    switch (kind) {
        case 'b': case 'B': return 1;
        case 'h': case 'H': return 2;
        case 'l': return 8;
        default: return 4;
    }
}

/* The class types the kernels read, by their tag in _kernel._CLASS_KINDS: DEFINE(NAME_type,
 * C type) for each, and a switch that runs RUN(NAME_type, C type) for a kind. */
#define EACH_CLASS_TYPE(DEFINE, NAME)                                                       \
    DEFINE(NAME##_i8, int8_t)                                                               \
    DEFINE(NAME##_i16, int16_t)                                                             \
    DEFINE(NAME##_i32, int32_t)                                                             \
    DEFINE(NAME##_i64, int64_t)                                                             \
    DEFINE(NAME##_u8, uint8_t)                                                              \
    DEFINE(NAME##_u16, uint16_t)                                                            \
    DEFINE(NAME##_u32, uint32_t)
#define SWITCH_CLASS_TYPE(kind, NAME, OTHERWISE)                                            \
    switch (kind) {                                                                         \
        case 'b': RUN(NAME##_i8, int8_t); break;                                            \
        case 'h': RUN(NAME##_i16, int16_t); break;                                          \
        case 'i': RUN(NAME##_i32, int32_t); break;                                          \
        case 'l': RUN(NAME##_i64, int64_t); break;                                          \
        case 'B': RUN(NAME##_u8, uint8_t); break;                                           \
        case 'H': RUN(NAME##_u16, uint16_t); break;                                         \
        case 'I': RUN(NAME##_u32, uint32_t); break;                                         \
        default: OTHERWISE;                                                                 \
    }

/* Up to this many positives per run, compare directly: O(rows x positives) with no sort. */
#define FEW_POSITIVES 16

#define DEFINE_KERNEL(NAME, T)                                                              \
    static int NAME##_desc(const void *a, const void *b) {                                  \
        T x = *(const T *)a, y = *(const T *)b;                                             \
        return (x < y) - (x > y);                                                           \
    }                                                                                       \
                                                                                            \
    /* How many leading values of v[0..n), sorted descending, are >= x (above: > x). */   \
    static int64_t NAME##_leading(const T *v, int64_t n, T x, int above) {                  \
        int64_t lo = 0, hi = n;                                                             \
        while (lo < hi) {                                                                   \
            int64_t mid = lo + (hi - lo) / 2;                                               \
            if (above ? v[mid] > x : v[mid] >= x)                                           \
                lo = mid + 1;                                                               \
            else                                                                            \
                hi = mid;                                                                   \
        }                                                                                   \
        return lo;                                                                          \
    }                                                                                       \
                                                                                            \
    /* The scores of rows [a, b)'s positives into *buf, grown to hold `times` times the     \
     * rows; how many, or -1 when out of memory. */                                         \
    static inline int64_t NAME##_positives(const T *score, const uint8_t *truth, int64_t a, \
                                           int64_t b, T **buf, int64_t *cap, int64_t times) { \
        if (times * (b - a) > *cap) {                                                       \
            *cap = times * (b - a);                                                         \
            free(*buf);                                                                     \
            *buf = malloc((size_t)*cap * sizeof(T));                                        \
            if (*buf == NULL) return -1;                                                    \
        }                                                                                   \
        int64_t npos = 0;                                                                   \
        for (int64_t i = a; i < b; i++) { /* written always, kept if positive */          \
            (*buf)[npos] = score[i];                                                        \
            npos += truth[i] != 0;                                                          \
        }                                                                                   \
        return npos;                                                                        \
    }                                                                                       \
                                                                                            \
    /* Returns 0, or -1 when out of memory. */                                              \
    WIDE_SIMD static int NAME(const int64_t *starts, int64_t runs, const T *score,          \
                    const uint8_t *truth, int64_t *rank, int64_t *pos_rank, double *prec,   \
                    double *neg_above, double *max_rank) {                                  \
        T *buf = NULL;                                                                      \
        int64_t cap = 0, out = 0;                                                           \
        for (int64_t g = 0; g < runs; g++) {                                                \
            int64_t a = starts[g], b = starts[g + 1];                                       \
            prec[g] = neg_above[g] = max_rank[g] = 0.0;                                     \
            /* buf holds the positives, then the candidates and a sorted copy of them. */   \
            int64_t npos = NAME##_positives(score, truth, a, b, &buf, &cap, 3);             \
            if (npos < 0) return -1;                                                        \
            if (npos == 0) continue;                                                        \
            int64_t *r = rank + out, *p = pos_rank + out;                                   \
            const T *pos = buf;                                                             \
            if (npos <= FEW_POSITIVES) {                                                    \
                /* One pass per positive over the run, counting scores alone (the         \
                 * compiler vectorizes it); the positives above it, among the positives. */ \
                for (int64_t k = 0; k < npos; k++) {                                        \
                    T x = pos[k];                                                           \
                    int64_t rk = 0, pk = 0;                                                 \
                    for (int64_t i = a; i < b; i++) rk += score[i] >= x;                    \
                    for (int64_t j = 0; j < npos; j++) pk += pos[j] >= x;                   \
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
                    r[k] = NAME##_leading(cand, n, pos[k], 0);                              \
                    p[k] = NAME##_leading(sorted_pos, npos, pos[k], 0);                     \
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
    const Py_buffer *columns[] = {&score, &truth};
    Py_ssize_t sizes[] = {is_f32 ? 4 : 8, 1};
    status = rows_fit(&starts, 0, columns, sizes, 2) ? 0 : -2;
    if (status == 0) {
        Py_BEGIN_ALLOW_THREADS
        if (is_f32)
            status = pair_counts_f32(starts.buf, runs, score.buf, truth.buf, rank.buf,
                                     pos_rank.buf, prec.buf, neg_above.buf, max_rank.buf);
        else
            status = pair_counts_f64(starts.buf, runs, score.buf, truth.buf, rank.buf,
                                     pos_rank.buf, prec.buf, neg_above.buf, max_rank.buf);
        Py_END_ALLOW_THREADS
    }
    Py_buffer *buffers[] = {&starts, &score, &truth, &rank, &pos_rank, &prec, &neg_above,
                            &max_rank};
    for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++)
        PyBuffer_Release(buffers[i]);
    if (status == -2) return PyErr_Format(PyExc_ValueError, "pair_counts: a column is short");
    if (status != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ndcg_sums: per run, the DCG of its rows ranked by score (truth as relevance), each tie
 * group of n rows at positions [start, end) sharing its positives' gain evenly over those
 * positions' discounts, and the ideal DCG. disc[m] is the sum of the first m discounts (up
 * to the longest run), k the positions that count (-1: all). As the polars plan computes
 * it (_ndcg.py): per distinct score of some positive, lowest first, p * (disc[min(end, k)]
 * - disc[min(start, k)]) / n added up from 0.0, in the plan's order of operations; the
 * ideal is disc[min(positives, k)]. With few positives each distinct positive score is
 * one pass over the run; with many the run's scores are sorted and searched. */
#define DEFINE_NDCG(NAME, T, PAIRS)                                                         \
    static int NAME##_asc(const void *a, const void *b) {                                   \
        T x = *(const T *)a, y = *(const T *)b;                                             \
        return (x > y) - (x < y);                                                           \
    }                                                                                       \
                                                                                            \
    /* Returns 0, or -1 when out of memory. */                                              \
    static int NAME(const int64_t *starts, int64_t runs, const T *score,                    \
                    const uint8_t *truth, const double *disc, int64_t k, double *dcg,       \
                    double *ideal) {                                                        \
        T *buf = NULL;                                                                      \
        int64_t cap = 0;                                                                    \
        for (int64_t g = 0; g < runs; g++) {                                                \
            int64_t a = starts[g], b = starts[g + 1];                                       \
            double sum = 0.0;                                                               \
            /* buf holds the positives, then (many of them) a sorted copy of the run. */   \
            int64_t npos = PAIRS##_positives(score, truth, a, b, &buf, &cap, 2);            \
            if (npos < 0) return -1;                                                        \
            T *sorted = buf + npos;                                                         \
            if (npos > FEW_POSITIVES) {                                                     \
                for (int64_t i = a; i < b; i++) sorted[i - a] = score[i];                  \
                qsort(sorted, (size_t)(b - a), sizeof(T), PAIRS##_desc);                    \
            }                                                                               \
            qsort(buf, (size_t)npos, sizeof(T), NAME##_asc);                                \
            for (int64_t j = 0; j < npos;) {                                                \
                T v = buf[j];                                                               \
                int64_t p = 0, r = 0, above = 0;                                            \
                while (j < npos && buf[j] == v) {                                           \
                    p++;                                                                    \
                    j++;                                                                    \
                }                                                                           \
                if (npos <= FEW_POSITIVES) {                                                \
                    for (int64_t i = a; i < b; i++) {                                       \
                        r += score[i] >= v;                                                 \
                        above += score[i] > v;                                              \
                    }                                                                       \
                } else {                                                                    \
                    r = PAIRS##_leading(sorted, b - a, v, 0);                               \
                    above = PAIRS##_leading(sorted, b - a, v, 1);                           \
                }                                                                           \
                int64_t end = r, start = above;                                             \
                if (k >= 0) {                                                               \
                    end = end < k ? end : k;                                                \
                    start = start < k ? start : k;                                          \
                }                                                                           \
                sum += (double)p * (disc[end] - disc[start]) / (double)(r - above);         \
            }                                                                               \
            dcg[g] = sum;                                                                   \
            ideal[g] = disc[k >= 0 && npos > k ? k : npos];                                 \
        }                                                                                   \
        free(buf);                                                                          \
        return 0;                                                                           \
    }

DEFINE_NDCG(ndcg_f64, double, pair_counts_f64)
DEFINE_NDCG(ndcg_f32, float, pair_counts_f32)

static PyObject *ndcg_sums(PyObject *self, PyObject *args) {
    Py_buffer starts, score, truth, disc, dcg, ideal;
    int status = 0, is_f32;
    long long k;
    if (!PyArg_ParseTuple(args, "y*y*py*y*Lw*w*", &starts, &score, &is_f32, &truth, &disc, &k,
                          &dcg, &ideal))
        return NULL;
    int64_t runs = starts.len / (Py_ssize_t)sizeof(int64_t) - 1;
    const Py_buffer *columns[] = {&score, &truth};
    Py_ssize_t sizes[] = {is_f32 ? 4 : 8, 1};
    /* Every position up to the longest run has its sum of discounts, and each run a value. */
    int64_t longest = 0;
    for (int64_t g = 0; g < runs; g++) {
        int64_t n = ((const int64_t *)starts.buf)[g + 1] - ((const int64_t *)starts.buf)[g];
        longest = n > longest ? n : longest;
    }
    if (!rows_fit(&starts, 0, columns, sizes, 2) || disc.len / 8 <= longest ||
        dcg.len / 8 < runs || ideal.len / 8 < runs)
        status = -2;
    if (status == 0) {
        Py_BEGIN_ALLOW_THREADS
        if (is_f32)
            status = ndcg_f32(starts.buf, runs, score.buf, truth.buf, disc.buf, (int64_t)k,
                              dcg.buf, ideal.buf);
        else
            status = ndcg_f64(starts.buf, runs, score.buf, truth.buf, disc.buf, (int64_t)k,
                              dcg.buf, ideal.buf);
        Py_END_ALLOW_THREADS
    }
    Py_buffer *buffers[] = {&starts, &score, &truth, &disc, &dcg, &ideal};
    for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++)
        PyBuffer_Release(buffers[i]);
    if (status == -2) return PyErr_Format(PyExc_ValueError, "ndcg_sums: a column is short");
    if (status != 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}


/* Whether the groups of runs run0 to run0 + runs - 1 are each in [0, n_groups). */
static int groups_below(const int64_t *of_run, int64_t run0, int64_t runs, int64_t n_groups) {
    for (int64_t g = run0; g < run0 + runs; g++)
        if (of_run[g] < 0 || of_run[g] >= n_groups) return 0;
    return 1;
}

/* run_sums: per run (one id), its positives and the wrapping sum of its rows' class
 * hashes, the two counts of the data checks; and per (segment, class), where a segment is
 * a stretch of runs of one group, the rows, or with pred the rows of each (truth, pred)
 * pair: class_rows[(segment * n_codes + class) * 4 + 2 * truth + pred], one count a row
 * (the confusion counts come from these four; four counts a row took twice as long); with
 * weight too (a double per row), class_weights holds the rows' weights summed in the same
 * cells, in the rows' order (the weighted confusion counts).
 * Classes are looked up as value - low in hash_of, which the caller built over [low, highest
 * class] with polars' own hash, so that the sums are those of the polars plan.
 * Runs start at starts[g] - base (the rows of a chunk: no shifted copy of starts); the
 * first is run number run0, whose segment firsts (each segment's first run) tells. Either
 * output may be empty: npos and hash_sum (nothing per run), or the per-segment reductions of
 * the runs' rows, positives and hash sums: seg_counts[segment * 6 + k] for the rows' sum,
 * min, max, then the positives' (k = 3, 4, 5), and seg_hashes[segment * 3 + k] for the
 * hash sums' wrapping sum, min and max, updated from the values they hold. With of_run
 * (each run's group, numbered: groups that change from id to id), the tables are per group
 * instead of per segment, n_groups of them, and firsts is not read.
 */
#define DEFINE_RUN_SUMS(NAME, C)                                                            \
    static void NAME(const int64_t *starts, int64_t base, int64_t runs,                    \
                     const uint8_t *truth, const uint8_t *pred, const C *cls, int64_t low, \
                     const uint64_t *hash_of, int64_t n_codes, seg_cursor seg, int64_t run0, \
                     int64_t *npos, uint64_t *hash_sum, int64_t *class_rows,               \
                     int64_t *seg_counts, uint64_t *seg_hashes, const double *weight,      \
                     double *class_weights) {                                              \
        for (int64_t g = 0; g < runs; g++) {                                                \
            int64_t a = starts[g] - base, b = starts[g + 1] - base, p = 0;                  \
            int64_t at = class_rows != NULL || seg_counts != NULL ? seg_at(&seg, run0 + g) : 0; \
            uint64_t h = 0;                                                                 \
            if (class_rows == NULL) {                                                       \
                for (int64_t i = a; i < b; i++) {                                           \
                    p += truth[i];                                                          \
                    h += hash_of[(int64_t)cls[i] - low];                                    \
                }                                                                           \
            } else if (pred == NULL) {                                                      \
                int64_t *rows = class_rows + at * n_codes;                                  \
                for (int64_t i = a; i < b; i++) {                                           \
                    int64_t code = (int64_t)cls[i] - low;                                   \
                    p += truth[i];                                                          \
                    h += hash_of[code];                                                     \
                    rows[code]++;                                                           \
                }                                                                           \
            } else if (weight == NULL) {                                                    \
                int64_t *rows = class_rows + at * n_codes * 4;                              \
                for (int64_t i = a; i < b; i++) {                                           \
                    int64_t code = (int64_t)cls[i] - low;                                   \
                    p += truth[i];                                                          \
                    h += hash_of[code];                                                     \
                    rows[code * 4 + 2 * truth[i] + pred[i]]++;                              \
                }                                                                           \
            } else {                                                                        \
                int64_t *rows = class_rows + at * n_codes * 4;                              \
                double *weights = class_weights + at * n_codes * 4;                         \
                for (int64_t i = a; i < b; i++) {                                           \
                    int64_t code = (int64_t)cls[i] - low, cell = code * 4 + 2 * truth[i] + pred[i]; \
                    p += truth[i];                                                          \
                    h += hash_of[code];                                                     \
                    rows[cell]++;                                                           \
                    weights[cell] += weight[i];                                             \
                }                                                                           \
            }                                                                               \
            if (npos != NULL) {                                                             \
                npos[g] = p;                                                                \
                hash_sum[g] = h;                                                            \
            }                                                                               \
            if (seg_counts != NULL) {                                                       \
                int64_t n = b - a, *c = seg_counts + at * 6;                                \
                uint64_t *s = seg_hashes + at * 3;                                          \
                c[0] += n;                                                                  \
                c[1] = n < c[1] ? n : c[1];                                                 \
                c[2] = n > c[2] ? n : c[2];                                                 \
                c[3] += p;                                                                  \
                c[4] = p < c[4] ? p : c[4];                                                 \
                c[5] = p > c[5] ? p : c[5];                                                 \
                s[0] += h;                                                                  \
                s[1] = h < s[1] ? h : s[1];                                                 \
                s[2] = h > s[2] ? h : s[2];                                                 \
            }                                                                               \
        }                                                                                   \
    }

EACH_CLASS_TYPE(DEFINE_RUN_SUMS, run_sums)

static PyObject *run_sums(PyObject *self, PyObject *args) {
    Py_buffer starts, truth, pred, cls, hash_of, firsts, npos, hash_sum, class_rows;
    Py_buffer seg_counts, seg_hashes, of_run, weight, class_weights;
    int kind; /* the classes' type: the tag of _kernel._CLASS_KINDS ('l': int64 everywhere) */
    long long base, low, run0, n_groups;
    if (!PyArg_ParseTuple(args, "y*Ly*y*y*CLy*y*Lw*w*w*w*w*y*Ly*w*", &starts, &base, &truth,
                          &pred, &cls, &kind, &low, &hash_of, &firsts, &run0, &npos,
                          &hash_sum, &class_rows, &seg_counts, &seg_hashes, &of_run,
                          &n_groups, &weight, &class_weights))
        return NULL;
    int64_t runs = starts.len / (Py_ssize_t)sizeof(int64_t) - 1;
    int64_t n_codes = hash_of.len / (Py_ssize_t)sizeof(uint64_t);
    int known = 1;
    const Py_buffer *columns[] = {&truth, &cls, &pred, &weight};
    Py_ssize_t sizes[] = {1, class_width(kind), 1, (Py_ssize_t)sizeof(double)};
    /* Weights are summed with the counts of (truth, pred): both or neither. */
    int weighted = weight.len && pred.len;
    seg_cursor seg = of_run.len ? seg_of_groups(&of_run, n_groups) : seg_start(&firsts, run0);
    Py_ssize_t planes = pred.len ? 4 : 1, cell = (Py_ssize_t)sizeof(int64_t);
    /* Every run's group is read, and each must have its tables. */
    int groups_fit = !of_run.len || (run0 >= 0 && run0 <= of_run.len / cell - runs &&
                                     n_groups >= 0 && groups_below(of_run.buf, run0, runs, n_groups));
    int fits = groups_fit && rows_fit(&starts, base, columns, sizes, weighted ? 4 : pred.len ? 3 : 2) &&
               (!weighted || class_weights.len >= class_rows.len) &&
               segments_fit(&seg, &class_rows, n_codes * planes * cell) &&
               segments_fit(&seg, &seg_counts, 6 * cell) && segments_fit(&seg, &seg_hashes, 3 * cell);
    if (!fits) kind = 0;
    Py_BEGIN_ALLOW_THREADS
#define RUN(NAME, C)                                                                        \
    NAME(starts.buf, (int64_t)base, runs, truth.buf, pred.len ? pred.buf : NULL,           \
         (const C *)cls.buf, (int64_t)low, hash_of.buf, n_codes, seg, (int64_t)run0,       \
         npos.len ? npos.buf : NULL, hash_sum.buf, class_rows.len ? class_rows.buf : NULL, \
         seg_counts.len ? seg_counts.buf : NULL, seg_hashes.buf,                            \
         weighted ? weight.buf : NULL, class_weights.buf)
    SWITCH_CLASS_TYPE(kind, run_sums, known = 0)
#undef RUN
    Py_END_ALLOW_THREADS
    Py_buffer *buffers[] = {&starts,   &truth,      &pred,       &cls,        &hash_of, &firsts,
                            &npos,     &hash_sum,   &class_rows, &seg_counts, &seg_hashes,
                            &of_run,   &weight,     &class_weights};
    for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++)
        PyBuffer_Release(buffers[i]);
    if (!fits) return PyErr_Format(PyExc_ValueError, "run_sums: a column or table is short");
    if (!known) return PyErr_Format(PyExc_TypeError, "run_sums: class type %c", kind);
    Py_RETURN_NONE;
}

/* curve_counts: the curves table of consecutive stretches of runs (a thread's share, read
 * in the columns' chunks). Per (segment, class, distinct score), the positive and negative
 * rows, counted in one hash table that is emptied onto the output whenever the segment
 * changes (and at the end). Scores are compared as polars groups them: -0.0 as 0.0, every
 * NaN as one. The output is a bytes object of curve_rows. Given each row's weight (the
 * sort mode only, whose threads share the classes, not the rows: each score's weights are
 * added whole, in the rows' order, whatever the thread count), the positives' and
 * negatives' weights are summed instead (as doubles, in the same fields).
 */
typedef struct {
    uint64_t key; /* the score's bits + 1; 0: empty */
    int64_t code;
    union {
        int64_t rows;
        double neg_w; /* weighted: the negatives' weight */
    };
    union {
        int64_t pos;
        double pos_w; /* weighted: the positives' weight */
    };
} curve_slot;

typedef struct {
    curve_slot *slots;
    int64_t mask, used;
    int rows;     /* the sort mode: a slot per row, appended (mask + 1 of them fit) */
    int weighted; /* (the sort mode's) each slot a row's weight (neg_w) */
} curve_table;

/* Adds x to *sum as polars' group_by adds a small group's floats, in the rows' order:
 * Kahan's compensated sum, no compensation past infinity. */
static inline void kahan_add(double *sum, double *comp, double x) {
    double y = x - *comp, t = *sum + y;
    *comp = isfinite(t) ? (t - *sum) - y : 0.0;
    *sum = t;
}

/* A row of the output (a numpy record in _kernel.curve_counts). */
typedef struct {
    int64_t segment, code;
    uint64_t bits;
    union {
        int64_t pos;
        double pos_w;
    };
    union {
        int64_t neg;
        double neg_w;
    };
} curve_row;

typedef struct {
    curve_row *rows;
    int64_t n, cap;
    /* The sort mode's columns (see curve_counts), shared between threads: each segment's
     * rows are moved there when counted, to rows reserved at *written. */
    int64_t *segment, *code, *written, room;
    uint64_t *bits;
    double *pos, *neg;
    int weighted; /* the rows hold weights */
} curve_out;

/* The sort mode: the rows counted moved to the shared columns. Returns -5 when they have
 * no room (the caller sized them by the rows). */
static int curve_move(curve_out *out) {
    int64_t at = __atomic_fetch_add(out->written, out->n, __ATOMIC_RELAXED);
    if (at + out->n > out->room) return -5;
    for (int64_t i = 0; i < out->n; i++) {
        curve_row *r = &out->rows[i];
        out->segment[at + i] = r->segment, out->code[at + i] = r->code, out->bits[at + i] = r->bits;
        out->pos[at + i] = out->weighted ? r->pos_w : (double)r->pos;
        out->neg[at + i] = out->weighted ? r->neg_w : (double)r->neg;
    }
    out->n = 0;
    return 0;
}

static inline uint64_t curve_hash(uint64_t key, int64_t code) {
    uint64_t h = (key ^ ((uint64_t)code * 0x9E3779B97F4A7C15ULL)) * 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 32);
}

static int curve_grow(curve_table *t) {
    int64_t old = t->mask + 1, size = old * 2;
    curve_slot *slots = calloc((size_t)size, sizeof(curve_slot));
    if (slots == NULL) return -1;
    for (int64_t i = 0; i < old; i++) {
        curve_slot s = t->slots[i];
        if (!s.key) continue;
        uint64_t j = curve_hash(s.key, s.code) & (uint64_t)(size - 1);
        while (slots[j].key) j = (j + 1) & (uint64_t)(size - 1);
        slots[j] = s;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 0;
}

/* A float's bits as an unsigned integer in the floats' order (NaN, positive, highest). */
static inline uint64_t float_order(uint64_t bits, int is_f32) {
    uint64_t sign = is_f32 ? 0x80000000ULL : 0x8000000000000000ULL;
    uint64_t all = is_f32 ? 0xFFFFFFFFULL : ~0ULL;
    return (bits & sign) ? (~bits & all) : (bits | sign);
}

static inline uint64_t float_bits(uint64_t order, int is_f32) {
    uint64_t sign = is_f32 ? 0x80000000ULL : 0x8000000000000000ULL;
    uint64_t all = is_f32 ? 0xFFFFFFFFULL : ~0ULL;
    return (order & sign) ? (order & ~sign) : (~order & all);
}

/* By class, then highest score first (keys hold float_order), then (the weighted sort
 * mode's rows of one score) in the rows' order. */
static inline int curve_before(const curve_slot *x, const curve_slot *y) {
    return x->code < y->code ||
           (x->code == y->code && (x->key > y->key || (x->key == y->key && x->pos < y->pos)));
}

static int curve_slot_order(const void *a, const void *b) {
    return curve_before(a, b) ? -1 : (curve_before(b, a) ? 1 : 0);
}

/* Sorts by curve_before: quicksort with the comparison inlined (several times faster than
 * qsort's calls through a pointer), insertion sort for short ranges, and qsort where the
 * splits go badly (deep recursion). */
static void curve_sort(curve_slot *v, int64_t n, int depth) {
    while (n > 16) {
        if (depth-- == 0) {
            qsort(v, (size_t)n, sizeof(curve_slot), curve_slot_order);
            return;
        }
        curve_slot *a = &v[0], *b = &v[n / 2], *c = &v[n - 1], *m;
        if (curve_before(a, b))
            m = curve_before(b, c) ? b : (curve_before(a, c) ? c : a);
        else
            m = curve_before(a, c) ? a : (curve_before(b, c) ? c : b);
        curve_slot pivot = *m, tmp;
        int64_t i = 0, j = n - 1;
        while (i <= j) {
            while (curve_before(&v[i], &pivot)) i++;
            while (curve_before(&pivot, &v[j])) j--;
            if (i <= j) {
                tmp = v[i], v[i] = v[j], v[j] = tmp;
                i++, j--;
            }
        }
        /* Recurse into the smaller side, loop on the larger. */
        if (j + 1 < n - i) {
            curve_sort(v, j + 1, depth);
            v += i, n -= i;
        } else {
            curve_sort(v + i, n - i, depth);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        curve_slot x = v[i];
        int64_t j = i;
        for (; j > 0 && curve_before(&x, &v[j - 1]); j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Room on out for n more rows. Returns -1 when out of memory. */
static int curve_reserve(curve_out *out, int64_t n) {
    if (out->n + n <= out->cap) return 0;
    int64_t cap = 2 * (out->n + n);
    curve_row *rows = realloc(out->rows, (size_t)cap * sizeof(curve_row));
    if (rows == NULL) return -1;
    out->rows = rows;
    out->cap = cap;
    return 0;
}

/* Sorts a[0, n) ascending, b the room for a copy: a radix sort by bytes, skipping the bytes
 * that all keys share (the exponent's, mostly), insertion sort for few keys. Given w (and
 * v, room for its copy), each key's double moves with it; the sort is stable, so keys that
 * tie keep their doubles in the order they came. */
static void radix_sort(uint64_t *a, uint64_t *b, int64_t n, double *w, double *v) {
    if (n < 64) {
        for (int64_t i = 1; i < n; i++) {
            uint64_t x = a[i];
            double y = w != NULL ? w[i] : 0.0;
            int64_t j = i;
            for (; j > 0 && x < a[j - 1]; j--) {
                a[j] = a[j - 1];
                if (w != NULL) w[j] = w[j - 1];
            }
            a[j] = x;
            if (w != NULL) w[j] = y;
        }
        return;
    }
    int64_t count[8][256] = {{0}};
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < 8; d++) count[d][(a[i] >> (8 * d)) & 255]++;
    uint64_t *from = a, *to = b;
    double *wfrom = w, *wto = v;
    for (int d = 0; d < 8; d++) {
        if (count[d][(a[0] >> (8 * d)) & 255] == n) continue;
        int64_t at = 0;
        for (int x = 0; x < 256; x++) {
            int64_t c = count[d][x];
            count[d][x] = at;
            at += c;
        }
        if (w == NULL)
            for (int64_t i = 0; i < n; i++) to[count[d][(from[i] >> (8 * d)) & 255]++] = from[i];
        else
            for (int64_t i = 0; i < n; i++) {
                int64_t k = count[d][(from[i] >> (8 * d)) & 255]++;
                to[k] = from[i], wto[k] = wfrom[i];
            }
        uint64_t *swap = from;
        from = to, to = swap;
        double *wswap = wfrom;
        wfrom = wto, wto = wswap;
    }
    if (from != a) {
        memcpy(a, from, (size_t)n * sizeof(uint64_t));
        if (w != NULL) memcpy(w, wfrom, (size_t)n * sizeof(double));
    }
}

/* The sort mode's flush (see curve_flush) when the classes span few integers: the scores
 * of each (class, truth) gathered in turn, sorted as integers (weighted: stably, each with
 * its weight, so that each side of a score adds its weights in the rows' order), and the
 * positives' and negatives' walked from the highest down together. Returns 1 when the
 * span is too wide (the caller sorts the slots instead), -1 when out of memory. */
static int curve_flush_rows(curve_table *t, int is_f32, int64_t segment, curve_out *out) {
    int64_t n = t->used, low = INT64_MAX, high = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
        low = t->slots[i].code < low ? t->slots[i].code : low;
        high = t->slots[i].code > high ? t->slots[i].code : high;
    }
    if (n == 0) return 0;
    if ((uint64_t)high - (uint64_t)low > (uint64_t)n + 4096) return 1;
    int64_t span = high - low + 1, *start = calloc((size_t)(2 * span + 1), sizeof(int64_t));
    uint64_t *keys = malloc((size_t)n * sizeof(uint64_t)), *room = malloc((size_t)n * sizeof(uint64_t));
    double *w = NULL, *wroom = NULL;
    if (t->weighted) w = malloc((size_t)n * sizeof(double)), wroom = malloc((size_t)n * sizeof(double));
    int status = start && keys && room && (!t->weighted || (w && wroom)) ? 0 : -1;
    if (status == 0) status = curve_reserve(out, n);
    if (status == 0) {
        /* Bucket 2 * (code - low) + truth: the negatives, then the positives, of a class.
         * (Weighted, a slot's truth is the last bit of pos, its weight neg_w.) */
        for (int64_t i = 0; i < n; i++) start[2 * (t->slots[i].code - low) + (t->slots[i].pos & 1) + 1]++;
        for (int64_t k = 0; k < 2 * span; k++) start[k + 1] += start[k];
        for (int64_t i = 0; i < n; i++) {
            curve_slot *s = &t->slots[i];
            int64_t at = start[2 * (s->code - low) + (s->pos & 1)]++;
            keys[at] = float_order(s->key - 1, is_f32);
            if (w != NULL) w[at] = s->neg_w;
        }
        /* start[k] is now bucket k's end, so bucket k is [start[k - 1], start[k]). */
        for (int64_t c = 0; c < span; c++) {
            int64_t neg0 = c ? start[2 * c - 1] : 0, pos0 = start[2 * c], end = start[2 * c + 1];
            radix_sort(keys + neg0, room, pos0 - neg0, w == NULL ? NULL : w + neg0, wroom);
            radix_sort(keys + pos0, room, end - pos0, w == NULL ? NULL : w + pos0, wroom);
            int64_t i = end - 1, j = pos0 - 1; /* the highest positive and negative left */
            while (i >= pos0 || j >= neg0) {
                uint64_t key = i < pos0 ? keys[j] : (j < neg0 || keys[i] > keys[j] ? keys[i] : keys[j]);
                int64_t i0 = i, j0 = j;
                for (; i >= pos0 && keys[i] == key; i--);
                for (; j >= neg0 && keys[j] == key; j--);
                curve_row r = {.segment = segment, .code = low + c, .bits = float_bits(key, is_f32)};
                if (w != NULL) { /* each side's weights from its first row on */
                    double pos = 0.0, neg = 0.0, comp = 0.0;
                    for (int64_t k = i + 1; k <= i0; k++) kahan_add(&pos, &comp, w[k]);
                    comp = 0.0;
                    for (int64_t k = j + 1; k <= j0; k++) kahan_add(&neg, &comp, w[k]);
                    r.pos_w = pos, r.neg_w = neg;
                } else
                    r.pos = i0 - i, r.neg = j0 - j;
                out->rows[out->n++] = r;
            }
        }
    }
    free(start), free(keys), free(room), free(w), free(wroom);
    t->used = 0;
    return status == 0 ? curve_move(out) : status;
}

/* Empties the table onto the output, by class and highest score first (the order the
 * metrics read them in: sorting within classes is then nearly free). In the sort mode
 * (t->rows), the slots are the first t->used, a row each: equal neighbours are added up. */
static int curve_flush(curve_table *t, int is_f32, int64_t segment, curve_out *out) {
    if (t->rows) {
        int status = curve_flush_rows(t, is_f32, segment, out);
        if (status <= 0) return status;
    }
    int64_t n = 0, last = t->rows ? t->used - 1 : t->mask;
    double comp_pos = 0.0, comp_neg = 0.0; /* (the weighted sort mode's) */
    for (int64_t i = 0; i <= last; i++) {
        if (!t->slots[i].key) continue;
        curve_slot s = t->slots[i];
        s.key = float_order(s.key - 1, is_f32);
        t->slots[n++] = s;
    }
    if (curve_reserve(out, n) != 0) return -1;
    curve_sort(t->slots, n, 64);
    int64_t first = out->n;
    for (int64_t i = 0; i < n; i++) {
        curve_slot *s = &t->slots[i];
        uint64_t bits = float_bits(s->key, is_f32);
        curve_row *before = out->n > first ? &out->rows[out->n - 1] : NULL;
        int same = before != NULL && before->code == s->code && before->bits == bits;
        if (t->weighted) {
            /* A row: its weight (neg_w), its number and truth (pos: number * 2 + truth),
             * added to its side of its score in the rows' order. */
            int truth = (int)(s->pos & 1);
            if (!same) {
                curve_row r = {.segment = segment, .code = s->code, .bits = bits};
                r.pos_w = 0.0, r.neg_w = 0.0;
                out->rows[out->n++] = r;
                before = &out->rows[out->n - 1];
                comp_pos = comp_neg = 0.0;
            }
            if (truth)
                kahan_add(&before->pos_w, &comp_pos, s->neg_w);
            else
                kahan_add(&before->neg_w, &comp_neg, s->neg_w);
        } else if (same) {
            before->pos += s->pos;
            before->neg += s->rows - s->pos;
        } else
            out->rows[out->n++] = (curve_row){segment, s->code, bits, {s->pos}, {s->rows - s->pos}};
    }
    t->used = 0;
    if (t->rows) return curve_move(out);
    memset(t->slots, 0, (size_t)(t->mask + 1) * sizeof(curve_slot));
    return 0;
}

/* The sort mode's slots: room for one more row. */
static int curve_room(curve_table *t) {
    if (t->used <= t->mask) return 0;
    int64_t size = 2 * (t->mask + 1);
    curve_slot *slots = realloc(t->slots, (size_t)size * sizeof(curve_slot));
    if (slots == NULL) return -1;
    t->slots = slots;
    t->mask = size - 1;
    return 0;
}

static inline uint64_t score_key(const void *score, int is_f32, int64_t i) {
    if (is_f32) {
        float x = ((const float *)score)[i];
        uint32_t bits;
        if (x == 0) return 1; /* -0.0 as 0.0 */
        if (x != x) return (uint64_t)0x7FC00000u + 1;
        memcpy(&bits, &x, sizeof bits);
        return (uint64_t)bits + 1;
    }
    double x = ((const double *)score)[i];
    uint64_t bits;
    if (x == 0) return 1;
    if (x != x) return 0x7FF8000000000000ULL + 1;
    memcpy(&bits, &x, sizeof bits);
    return bits + 1;
}

/* One stretch of runs into the table t, which holds the counts of segment *open (-1: none)
 * and is emptied onto out when the segment changes. Returns 0; -1 when out of memory; -3
 * when a segment has more than most distinct (class, score) pairs (scores nearly all
 * distinct: a table the size of the rows, which the caller leaves to polars). In the sort
 * mode (t->rows), each row of the classes from code_from to code_to (excluded) is a slot
 * of its own, summed when the segment's slots are sorted: no table to probe. */
#define DEFINE_CURVE_COUNTS(NAME, C)                                                        \
    static int NAME(const int64_t *starts, int64_t runs, seg_cursor seg, int64_t run0,      \
                    const C *cls, const void *score, int is_f32, const uint8_t *truth,      \
                    const double *weight, int64_t most, int64_t code_from, int64_t code_to, \
                    curve_table *t_, int64_t *open, curve_out *out) {                       \
        curve_table t = *t_;                                                                \
        int status = 0;                                                                     \
        for (int64_t g = 0; g < runs && status == 0; g++) {                                 \
            int64_t at = seg_at(&seg, run0 + g);                                            \
            if (*open != at) {                                                              \
                if (*open >= 0) status = curve_flush(&t, is_f32, *open, out);               \
                *open = at;                                                                 \
            }                                                                               \
            if (t.rows) {                                                                   \
                for (int64_t i = starts[g]; i < starts[g + 1] && status == 0; i++) {        \
                    int64_t code = (int64_t)cls[i];                                         \
                    if (code < code_from || code >= code_to) continue;                      \
                    if ((status = curve_room(&t)) != 0) break;                              \
                    curve_slot *s = &t.slots[t.used++];                                     \
                    s->key = score_key(score, is_f32, i), s->code = code;                   \
                    if (weight != NULL) /* (see curve_flush) */                             \
                        s->neg_w = weight[i], s->pos = 2 * (t.used - 1) + (truth[i] != 0);  \
                    else                                                                    \
                        s->rows = 1, s->pos = truth[i] != 0;                                \
                }                                                                           \
                continue;                                                                   \
            }                                                                               \
            for (int64_t i = starts[g]; i < starts[g + 1] && status == 0; i++) {            \
                uint64_t key = score_key(score, is_f32, i);                                 \
                int64_t code = (int64_t)cls[i];                                             \
                uint64_t j = curve_hash(key, code) & (uint64_t)t.mask;                      \
                while (t.slots[j].key && (t.slots[j].key != key || t.slots[j].code != code)) \
                    j = (j + 1) & (uint64_t)t.mask;                                         \
                curve_slot *s = &t.slots[j];                                                \
                s->rows++;                                                                  \
                s->pos += truth[i];                                                         \
                if (s->key) continue;                                                       \
                s->key = key;                                                               \
                s->code = code;                                                             \
                if (++t.used > most)                                                        \
                    status = -3;                                                            \
                else if (2 * t.used > t.mask + 1) /* at most half full: short probes */     \
                    status = curve_grow(&t);                                                \
            }                                                                               \
        }                                                                                   \
        *t_ = t;                                                                            \
        return status;                                                                      \
    }
EACH_CLASS_TYPE(DEFINE_CURVE_COUNTS, curve_counts)

/* The columns of one stretch (see curve_counts). */
typedef struct {
    Py_buffer starts, cls, score, truth, weight; /* (weight: obj NULL if none) */
    long long run0; /* the first run's number */
} curve_stretch;

/* Releases the buffers of n that were taken (their obj set). */
static void release_each(Py_buffer *buffers, int n) {
    for (int i = 0; i < n; i++)
        if (buffers[i].obj != NULL) PyBuffer_Release(&buffers[i]);
}

static PyObject *curve_counts(PyObject *self, PyObject *args) {
    PyObject *items;
    Py_buffer firsts;
    int kind, is_f32, status = 0;
    long long most, code_from = INT64_MIN, code_to = INT64_MAX;
    PyObject *targets = NULL;
    if (!PyArg_ParseTuple(args, "Oy*CpL|LLO:curve_counts", &items, &firsts, &kind, &is_f32, &most, &code_from,
                          &code_to, &targets))
        return NULL;
    /* The sort mode's columns: segment, code, bits, positives, negatives, written. */
    Py_buffer columns_out[6] = {{0}};
    curve_out out = {NULL, 0, 0};
    if (most == 0) {
        if (targets == NULL ||
            !PyArg_ParseTuple(targets, "w*w*w*w*w*w*", &columns_out[0], &columns_out[1],
                              &columns_out[2], &columns_out[3], &columns_out[4], &columns_out[5])) {
            PyBuffer_Release(&firsts);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "curve_counts: most=0 needs columns");
            return NULL;
        }
        out.segment = columns_out[0].buf, out.code = columns_out[1].buf;
        out.bits = columns_out[2].buf, out.pos = columns_out[3].buf, out.neg = columns_out[4].buf;
        out.written = columns_out[5].buf;
        out.room = columns_out[0].len / 8;
        for (int c = 1; c < 5; c++) out.room = columns_out[c].len / 8 < out.room ? columns_out[c].len / 8 : out.room;
        if (columns_out[5].len < 8) out.room = -1;
    }
    PyObject *list = PySequence_Fast(items, "curve_counts: stretches must be a sequence");
    if (list == NULL) {
        PyBuffer_Release(&firsts);
        release_each(columns_out, 6);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(list), parsed = 0;
    curve_stretch *stretches = calloc((size_t)(n ? n : 1), sizeof(curve_stretch));
    if (stretches == NULL) {
        Py_DECREF(list);
        PyBuffer_Release(&firsts);
        release_each(columns_out, 6);
        return PyErr_NoMemory();
    }
    Py_ssize_t sizes[] = {class_width(kind), is_f32 ? 4 : 8, 1, 8};
    int weighted = -1; /* whether the stretches give weights: all or none */
    for (; parsed < n; parsed++) {
        curve_stretch *x = &stretches[parsed];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(list, parsed), "y*Ly*y*y*|y*", &x->starts,
                              &x->run0, &x->cls, &x->score, &x->truth, &x->weight)) {
            status = -4;
            break;
        }
        const Py_buffer *columns[] = {&x->cls, &x->score, &x->truth, &x->weight};
        seg_cursor first = seg_start(&firsts, x->run0);
        int given = x->weight.obj != NULL;
        if (!rows_fit(&x->starts, 0, columns, sizes, 3 + given) || first.seg < 0 ||
            !rising(x->starts.buf, x->starts.len / (Py_ssize_t)sizeof(int64_t)) ||
            (weighted >= 0 && weighted != given)) {
            PyErr_Format(PyExc_ValueError,
                         "curve_counts: a column is short, the starts fall, a run has no segment,"
                         " or weights are given for some stretches only");
            parsed++;
            status = -4;
            break;
        }
        weighted = given;
    }
    out.weighted = weighted > 0;
    if (status == 0 && weighted > 0 && most != 0) {
        PyErr_SetString(PyExc_ValueError, "curve_counts: weights are counted in the sort mode (most=0)");
        status = -4;
    }
    curve_table t = {calloc(1024, sizeof(curve_slot)), 1023, 0, most == 0, weighted > 0};
    if (status == 0 && t.slots == NULL) status = -1;
    if (status == 0) {
        Py_BEGIN_ALLOW_THREADS
        int64_t open = -1; /* the segment in the table */
        for (Py_ssize_t k = 0; k < n && status == 0; k++) {
            curve_stretch *x = &stretches[k];
            int64_t runs = x->starts.len / (Py_ssize_t)sizeof(int64_t) - 1;
#define RUN(NAME, C)                                                                        \
    status = NAME(x->starts.buf, runs, seg_start(&firsts, x->run0), (int64_t)x->run0,          \
                  (const C *)x->cls.buf, x->score.buf, is_f32, x->truth.buf,                   \
                  x->weight.obj != NULL ? x->weight.buf : NULL, (int64_t)most,                 \
                  (int64_t)code_from, (int64_t)code_to, &t, &open, &out)
            SWITCH_CLASS_TYPE(kind, curve_counts, status = -2)
#undef RUN
        }
        if (status == 0 && open >= 0) status = curve_flush(&t, is_f32, open, &out);
        Py_END_ALLOW_THREADS
    }
    free(t.slots);
    for (Py_ssize_t k = 0; k < parsed; k++) {
        Py_buffer *buffers[] = {&stretches[k].starts, &stretches[k].cls, &stretches[k].score,
                                &stretches[k].truth, &stretches[k].weight};
        for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++) release_each(buffers[i], 1);
    }
    free(stretches);
    Py_DECREF(list);
    PyBuffer_Release(&firsts);
    release_each(columns_out, 6);
    PyObject *rows = NULL;
    if (status == -4)
        ; /* the error is set */
    else if (status == -2)
        PyErr_Format(PyExc_TypeError, "curve_counts: class type %c", kind);
    else if (status == -3)
        rows = Py_NewRef(Py_None);
    else if (status == -5)
        PyErr_SetString(PyExc_ValueError, "curve_counts: the columns are shorter than the rows");
    else if (status != 0)
        PyErr_NoMemory();
    else
        rows = PyBytes_FromStringAndSize((const char *)out.rows,
                                         (Py_ssize_t)(out.n * (int64_t)sizeof(curve_row)));
    free(out.rows);
    return rows;
}

/* curve_areas: per run of a curves table (a class's rows, highest score first), the sums
 * behind ROC AUC or average precision, as _curves._per_class_values' polars plan computes
 * them: the same operations in the same order, so the same bits (the caller compiles with
 * no contraction into fused multiply-adds). Returns 0 where a run's scores do not strictly
 * fall (ties, NaN, another order): the caller leaves those tables to the plan. */
static double unit_scale(double largest) {
    if (!(largest > 0)) return 1.0;
    double exponent = floor(log(largest) / log(2.0)); /* as polars' log(2): Rust's log */
    exponent = exponent < -1022 ? -1022 : (exponent > 1023 ? 1023 : exponent);
    return pow(2.0, -exponent);
}

static int curve_areas_of(const int64_t *starts, int64_t runs, const void *score, int is_f32,
                          const double *pos, const double *neg, int roc, double *area,
                          double *pos_sum, double *neg_sum, double *pos_scale,
                          double *neg_scale) {
    for (int64_t r = 0; r < runs; r++) {
        int64_t a = starts[r], b = starts[r + 1];
        for (int64_t i = a + 1; i < b; i++) {
            int falls = is_f32 ? ((const float *)score)[i] < ((const float *)score)[i - 1]
                               : ((const double *)score)[i] < ((const double *)score)[i - 1];
            if (!falls) return 0;
        }
        double ps = 1.0, ns = 1.0;
        if (roc) {
            double most_pos = 0, most_neg = 0;
            for (int64_t i = a; i < b; i++) {
                most_pos = fabs(pos[i]) > most_pos ? fabs(pos[i]) : most_pos;
                most_neg = fabs(neg[i]) > most_neg ? fabs(neg[i]) : most_neg;
            }
            ps = unit_scale(most_pos), ns = unit_scale(most_neg);
        }
        /* polars' cum_sum starts from the first value; ordered_sum is a cum_sum's last. */
        double tp = 0, fp = 0, sum = 0, p = 0, n = 0;
        for (int64_t i = a; i < b; i++) {
            double x = pos[i] * ps, y = neg[i] * ns, term;
            tp = i == a ? x : tp + x;
            fp = i == a ? y : fp + y;
            if (roc)
                term = y * (tp + (tp - x)) / 2;
            else
                term = (pos[i] != 0 && tp + fp != 0) ? pos[i] * (tp / (tp + fp)) : 0.0;
            sum = i == a ? term : sum + term;
            p = i == a ? pos[i] : p + pos[i];
            n = i == a ? neg[i] : n + neg[i];
        }
        area[r] = sum, pos_sum[r] = p, neg_sum[r] = n, pos_scale[r] = ps, neg_scale[r] = ns;
    }
    return 1;
}

static PyObject *curve_areas(PyObject *self, PyObject *args) {
    Py_buffer starts, score, pos, neg, area, pos_sum, neg_sum, pos_scale, neg_scale;
    int is_f32, roc, done = -1;
    if (!PyArg_ParseTuple(args, "y*y*py*y*pw*w*w*w*w*", &starts, &score, &is_f32, &pos, &neg,
                          &roc, &area, &pos_sum, &neg_sum, &pos_scale, &neg_scale))
        return NULL;
    int64_t runs = starts.len / (Py_ssize_t)sizeof(int64_t) - 1;
    int64_t rows = runs < 0 ? 0 : ((const int64_t *)starts.buf)[runs];
    Py_ssize_t width = is_f32 ? 4 : 8, out = runs * (Py_ssize_t)sizeof(double);
    int fits = runs >= 0 && ((const int64_t *)starts.buf)[0] == 0 && score.len / width >= rows &&
               rising(starts.buf, runs + 1) &&
               pos.len / 8 >= rows && neg.len / 8 >= rows && area.len >= out &&
               pos_sum.len >= out && neg_sum.len >= out && pos_scale.len >= out &&
               neg_scale.len >= out;
    if (fits) {
        Py_BEGIN_ALLOW_THREADS
        done = curve_areas_of(starts.buf, runs, score.buf, is_f32, pos.buf, neg.buf, roc,
                              area.buf, pos_sum.buf, neg_sum.buf, pos_scale.buf, neg_scale.buf);
        Py_END_ALLOW_THREADS
    }
    Py_buffer *buffers[] = {&starts, &score, &pos, &neg, &area, &pos_sum, &neg_sum, &pos_scale,
                            &neg_scale};
    for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); i++) PyBuffer_Release(buffers[i]);
    if (done < 0) return PyErr_Format(PyExc_ValueError, "curve_areas: a column is short, or the starts fall");
    return PyBool_FromLong(done);
}

/* sums_from_last: per block [starts[b], starts[b + 1]) of each float64 column, the sum of
 * its rows added one at a time from 0.0, from the block's last row back to its first: as
 * polars' ordered sum adds a curves block's rows, lowest score first. out holds the sums
 * block by block (a row of as many sums as columns). The columns are read together, so
 * their additions overlap. */
#define SUMS_MOST_COLUMNS 8
static PyObject *sums_from_last(PyObject *self, PyObject *args) {
    Py_buffer starts, out, columns[SUMS_MOST_COLUMNS] = {{0}};
    PyObject *items;
    if (!PyArg_ParseTuple(args, "y*Ow*:sums_from_last", &starts, &items, &out)) return NULL;
    PyObject *list = PySequence_Fast(items, "sums_from_last: columns must be a sequence");
    Py_ssize_t k = list == NULL ? 0 : PySequence_Fast_GET_SIZE(list), taken = 0;
    int fits = list != NULL && k <= SUMS_MOST_COLUMNS;
    for (; fits && taken < k; taken++)
        fits = PyArg_Parse(PySequence_Fast_GET_ITEM(list, taken), "y*", &columns[taken]);
    if (fits && !PyErr_Occurred()) {
        const int64_t *at = starts.buf;
        int64_t blocks = starts.len / (Py_ssize_t)sizeof(int64_t) - 1;
        int64_t rows = blocks < 0 ? 0 : at[blocks];
        fits = blocks >= 0 && at[0] >= 0 && rising(at, blocks + 1) &&
               out.len / (Py_ssize_t)sizeof(double) >= blocks * k;
        for (Py_ssize_t c = 0; c < k && fits; c++) fits = columns[c].len / 8 >= rows;
        if (fits) {
            Py_BEGIN_ALLOW_THREADS
            double *sums = out.buf, acc[SUMS_MOST_COLUMNS];
            for (int64_t b = 0; b < blocks; b++) {
                for (Py_ssize_t c = 0; c < k; c++) acc[c] = 0.0;
                for (int64_t i = at[b + 1] - 1; i >= at[b]; i--)
                    for (Py_ssize_t c = 0; c < k; c++) acc[c] += ((const double *)columns[c].buf)[i];
                for (Py_ssize_t c = 0; c < k; c++) sums[b * k + c] = acc[c];
            }
            Py_END_ALLOW_THREADS
        } else
            PyErr_SetString(PyExc_ValueError, "sums_from_last: a column or out is short, or the starts fall");
    } else if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "sums_from_last: at most %d columns", SUMS_MOST_COLUMNS);
    Py_XDECREF(list);
    release_each(columns, (int)taken);
    PyBuffer_Release(&starts), PyBuffer_Release(&out);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* kahan_bincount: out[k] = the values of the rows numbered k, added in the rows' order
 * with kahan_add from 0.0: numpy's bincount with weights, but compensated as polars' in-memory
 * group_by adds a small group's floats. Numbers must lie in [0, len(out)). */
static PyObject *kahan_bincount(PyObject *self, PyObject *args) {
    Py_buffer number, values, out;
    if (!PyArg_ParseTuple(args, "y*y*w*:kahan_bincount", &number, &values, &out)) return NULL;
    int64_t n = number.len / (Py_ssize_t)sizeof(int64_t), m = out.len / (Py_ssize_t)sizeof(double);
    const int64_t *k = number.buf;
    int fits = values.len / (Py_ssize_t)sizeof(double) >= n;
    for (int64_t i = 0; i < n && fits; i++) fits = k[i] >= 0 && k[i] < m;
    double *comp = fits ? calloc((size_t)(m ? m : 1), sizeof(double)) : NULL;
    if (comp != NULL) {
        double *sums = out.buf;
        const double *v = values.buf;
        Py_BEGIN_ALLOW_THREADS
        for (int64_t j = 0; j < m; j++) sums[j] = 0.0;
        for (int64_t i = 0; i < n; i++) kahan_add(&sums[k[i]], &comp[k[i]], v[i]);
        Py_END_ALLOW_THREADS
        free(comp);
    }
    PyBuffer_Release(&number), PyBuffer_Release(&values), PyBuffer_Release(&out);
    if (!fits) return PyErr_Format(PyExc_ValueError, "kahan_bincount: a number is out of range, or values are short");
    if (comp == NULL) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* change_rows: the rows i >= 1 of a column's chunk whose value differs from row i - 1's,
 * ascending; values are compared as bits, `width` bytes each (1, 2, 4, 8, or 16 for Arrow
 * string views). Blocks of rows without a change are skipped after one vectorized check.
 * out needs room for a row per value; only the rows written touch its memory. Given the
 * integers' order (kind 'i' signed, 'u' unsigned), it also counts the rows whose value is
 * below the row before's: whether ids increase, read while they are at hand.
 */
#define CHANGE_BLOCK 64
#if defined(__GNUC__) || defined(__clang__)
/* Each block's flags (0 or 0xFF a row, a loop the compiler vectorizes) become a bit mask,
 * whose set bits are written: twice as fast as a write a row where ids change every few
 * rows (10 classes), and as fast where they seldom do. */
#define MASKED_CHANGES 1
static inline uint64_t block_mask(const uint8_t *flag) {
    uint64_t mask = 0;
#ifdef __SSE2__
    for (int q = 0; q < CHANGE_BLOCK / 16; q++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(flag + 16 * q));
        mask |= (uint64_t)(uint32_t)_mm_movemask_epi8(x) << (16 * q);
    }
#else
    for (int j = 0; j < CHANGE_BLOCK; j++) mask |= (uint64_t)(flag[j] & 1) << j;
#endif
    return mask;
}
#define WRITE_BLOCK(DIFFERS)                                                                \
    uint8_t flag[CHANGE_BLOCK];                                                             \
    for (int j = 0; j < CHANGE_BLOCK; j++)                                                  \
        flag[j] = (uint8_t)(0u - (unsigned)DIFFERS(v[i + j], v[i + j - 1]));                \
    uint64_t mask = block_mask(flag);                                                       \
    if (!mask) continue;                                                                    \
    for (; mask; mask &= mask - 1) out[k++] = i + __builtin_ctzll(mask);
#else
#define WRITE_BLOCK(DIFFERS)                                                                \
    int any = 0;                                                                            \
    for (int j = 0; j < CHANGE_BLOCK; j++) any |= DIFFERS(v[i + j], v[i + j - 1]);          \
    if (!any) continue;                                                                     \
    for (int j = 0; j < CHANGE_BLOCK; j++) {                                                \
        out[k] = i + j; /* written always, kept when it differs: no branch */               \
        k += DIFFERS(v[i + j], v[i + j - 1]);                                               \
    }
#endif
#define DEFINE_CHANGE_ROWS(NAME, T, DIFFERS, BELOW)                                         \
    WIDE_SIMD static int64_t NAME(const T *v, int64_t n, int64_t *out, int64_t *below) {    \
        int64_t k = 0, i = 1, down = 0;                                                     \
        for (; i + CHANGE_BLOCK <= n; i += CHANGE_BLOCK) {                                  \
            WRITE_BLOCK(DIFFERS)                                                            \
            for (int j = 0; j < CHANGE_BLOCK; j++) down += BELOW(v[i + j], v[i + j - 1]);   \
        }                                                                                   \
        for (; i < n; i++) {                                                                \
            out[k] = i;                                                                     \
            k += DIFFERS(v[i], v[i - 1]);                                                   \
            down += BELOW(v[i], v[i - 1]);                                                  \
        }                                                                                   \
        *below = down;                                                                      \
        return k;                                                                           \
    }

typedef struct {
    uint64_t low, high;
} view16;
#define SCALAR_DIFFERS(a, b) ((a) != (b))
#define VIEW_DIFFERS(a, b) (((a).low != (b).low) | ((a).high != (b).high))
#define NO_ORDER(a, b) 0
#define BELOW(a, b) ((a) < (b))
DEFINE_CHANGE_ROWS(change_rows_1, uint8_t, SCALAR_DIFFERS, NO_ORDER)
DEFINE_CHANGE_ROWS(change_rows_2, uint16_t, SCALAR_DIFFERS, NO_ORDER)
DEFINE_CHANGE_ROWS(change_rows_4, uint32_t, SCALAR_DIFFERS, NO_ORDER)
DEFINE_CHANGE_ROWS(change_rows_8, uint64_t, SCALAR_DIFFERS, NO_ORDER)
DEFINE_CHANGE_ROWS(change_rows_16, view16, VIEW_DIFFERS, NO_ORDER)
#define DEFINE_ORDERED(WIDTH, SIGNED, UNSIGNED)                                             \
    DEFINE_CHANGE_ROWS(change_rows_i##WIDTH, SIGNED, SCALAR_DIFFERS, BELOW)                 \
    DEFINE_CHANGE_ROWS(change_rows_u##WIDTH, UNSIGNED, SCALAR_DIFFERS, BELOW)
DEFINE_ORDERED(1, int8_t, uint8_t)
DEFINE_ORDERED(2, int16_t, uint16_t)
DEFINE_ORDERED(4, int32_t, uint32_t)
DEFINE_ORDERED(8, int64_t, uint64_t)

static PyObject *change_rows(PyObject *self, PyObject *args) {
    Py_buffer values, out;
    int width, order = 0;
    if (!PyArg_ParseTuple(args, "y*iw*|C", &values, &width, &out, &order)) return NULL;
    int64_t n = width > 0 ? values.len / width : 0, found = -1, below = 0;
    if (width > 0 && out.len / (Py_ssize_t)sizeof(int64_t) >= n) {
        Py_BEGIN_ALLOW_THREADS
#define CASE(W, NAME) \
    case W: found = NAME(values.buf, n, out.buf, &below); break;
        if (order == 'i') {
            switch (width) { CASE(1, change_rows_i1) CASE(2, change_rows_i2)
                             CASE(4, change_rows_i4) CASE(8, change_rows_i8) }
        } else if (order == 'u') {
            switch (width) { CASE(1, change_rows_u1) CASE(2, change_rows_u2)
                             CASE(4, change_rows_u4) CASE(8, change_rows_u8) }
        } else if (order == 0) {
            switch (width) { CASE(1, change_rows_1) CASE(2, change_rows_2) CASE(4, change_rows_4)
                             CASE(8, change_rows_8) CASE(16, change_rows_16) }
        }
#undef CASE
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&values);
    PyBuffer_Release(&out);
    if (found < 0) return PyErr_Format(PyExc_ValueError, "change_rows: width %d, order %c", width, order ? order : '-');
    return Py_BuildValue("LL", (long long)found, (long long)below);
}

static PyMethodDef methods[] = {
    {"pair_counts", pair_counts, METH_VARARGS,
     "pair_counts(starts, score, is_f32, truth, rank, pos_rank, prec, neg_above, max_rank):"
     " R and P of each positive, and each run's sums."},
    {"ndcg_sums", ndcg_sums, METH_VARARGS,
     "ndcg_sums(starts, score, is_f32, truth, discounts, k, dcg, ideal): each run's"
     " discounted cumulative gain, ties averaged, and its ideal (k=-1: every position)."},
    {"run_sums", run_sums, METH_VARARGS,
     "run_sums(starts, base, truth, pred, classes, kind, low, hash_of, firsts, run0, npos,"
     " hash_sum, class_rows, seg_counts, seg_hashes, of_run, n_groups, weight, class_weights):"
     " each run's positives and class-hash sum, their reductions per segment (or per group of"
     " of_run), counts (and with weight, weights) per segment (or group) and class."},
    {"curve_counts", curve_counts, METH_VARARGS,
     "curve_counts(stretches, firsts, kind, is_f32, most): the positive and negative rows per"
     " (segment, class, score) of the stretches, each (starts, run0, classes, score,"
     " truth[, weight]), as bytes of (segment, code, score bits, positives, negatives) int64"
     " records;"
     " None if a segment has more than most of them. most=0, code_from, code_to, columns:"
     " every row of those classes sorted instead, the rows written to the columns"
     " (segment, code, score bits, positives, negatives as float64 (with weights, which"
     " need most=0, the weights' sums), and the count written,"
     " shared by threads); returns b''."},
    {"curve_areas", curve_areas, METH_VARARGS,
     "curve_areas(starts, score, is_f32, pos, neg, roc, area, pos_sum, neg_sum, pos_scale,"
     " neg_scale): per run of a curves table, highest score first, the sums behind ROC AUC"
     " (roc) or average precision; False where a run's scores do not strictly fall."},
    {"kahan_bincount", kahan_bincount, METH_VARARGS,
     "kahan_bincount(number, values, out): each number's values added in the rows' order,"
     " compensated as polars' group_by adds floats."},
    {"sums_from_last", sums_from_last, METH_VARARGS,
     "sums_from_last(starts, columns, out): per block of each float64 column, its rows added"
     " from 0.0, last row first, written to out block by block (a sum per column)."},
    {"change_rows", change_rows, METH_VARARGS,
     "change_rows(values, width, out, order=None): the rows whose value differs from the row"
     " before's, written to out; returns how many, and how many are below the row before's"
     " (given the integers' order, 'i' or 'u'; otherwise 0)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
