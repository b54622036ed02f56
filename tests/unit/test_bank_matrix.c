/* test_bank_matrix.c: the model of ldmatrix, stmatrix and cp.async against the H200 table
 * (tests/data/h200-matrix.json, measured with Nsight Compute by tests/gpu/matrix_table.sh; read
 * at run time, not copied), the swizzle function against CuTe's definition, and the errors.
 * The pattern language's ldmatrix/stmatrix/cp.async and swizzle() give the table's offsets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../src/model/bank.h"
#include "../../src/model/pattern.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    return buf;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The access a table entry describes, as the model takes it. 0, or -1 for an entry the model
 * does not cover (cp.async.cg: no counter sees it). */
static int access_of(const cJSON *c, struct bank_access *acc)
{
    memset(acc, 0, sizeof *acc);
    const char *ins = str(c, "instruction"), *var = str(c, "variant");
    acc->width = (unsigned)num(c, "width");
    acc->mask = (uint32_t)strtoul(str(c, "mask"), NULL, 16);
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(c, "offsets");
    assert_int_equal(cJSON_GetArraySize(offs), 32);
    for (int i = 0; i < 32; i++)
        acc->offset[i] = (uint64_t)cJSON_GetArrayItem(offs, i)->valuedouble;
    if (!strcmp(ins, "ldmatrix") || !strcmp(ins, "stmatrix")) {
        acc->instr = ins[0] == 'l' ? BANK_LDMATRIX : BANK_STMATRIX;
        acc->op = ins[0] == 'l' ? BANK_LOAD : BANK_STORE;
        assert_true(var[0] == 'x');
        acc->matrices = (uint8_t)(var[1] - '0');
        acc->trans = strstr(var, "trans") != NULL;
    } else if (!strcmp(ins, "cp.async")) {
        if (strncmp(var, "ca.", 3))
            return -1;
        acc->instr = BANK_CPASYNC;
        acc->op = BANK_STORE;
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(c, "global_offsets");
        assert_int_equal(cJSON_GetArraySize(g), 32);
        acc->has_src = 1;
        for (int i = 0; i < 32; i++)
            acc->src[i] = (uint32_t)cJSON_GetArrayItem(g, i)->valuedouble;
    } else {
        acc->op = !strcmp(ins, "st.shared") ? BANK_STORE : BANK_LOAD;
    }
    return 0;
}

static void test_h200_matrix_table(void **state)
{
    (void)state;
    char *text = slurp(TEST_DATA_DIR "/h200-matrix.json");
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    assert_true(cJSON_IsArray(cases));
    int n = 0, bad = 0, nmatrix = 0, ncp = 0, ncg = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        const char *name = str(c, "name");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "measured")));
        struct bank_access acc;
        if (access_of(c, &acc) < 0) {
            /* cp.async.cg (LDGSTS.BYPASS): the counters saw nothing on the H200 */
            assert_true(num(c, "wavefronts") == 0 && num(c, "conflicts") == 0);
            ncg++;
            continue;
        }
        double wf = num(c, "wavefronts"), cf = num(c, "conflicts");
        struct bank_result r;
        assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
        /* the counters are exact per instruction except a whole-kernel stray or two in 100
         * instructions (cpa_ca16_stride1_gscatter: 27.96 conflicts) */
        if (r.wavefronts != (int)(wf + 0.5) || r.conflicts != (int)(cf + 0.5) ||
            wf - (int)(wf + 0.5) > 0.05 || (int)(wf + 0.5) - wf > 0.05 ||
            cf - (int)(cf + 0.5) > 0.05 || (int)(cf + 0.5) - cf > 0.05) {
            print_error("%s: model %d wavefronts / %d conflicts, H200 %g / %g\n", name,
                        r.wavefronts, r.conflicts, wf, cf);
            bad++;
        }
        n++;
        nmatrix += acc.instr == BANK_LDMATRIX || acc.instr == BANK_STMATRIX;
        ncp += acc.instr == BANK_CPASYNC;
    }
    cJSON_Delete(root);
    free(text);
    assert_true(nmatrix >= 40);
    assert_true(ncp >= 20);
    assert_true(ncg >= 1);
    assert_true(n >= 100);
    assert_int_equal(bad, 0);
    /* the installed copy that banklab verify reads is the same file */
    char *installed = slurp("assets/h200-matrix.json");
    char *again = slurp(TEST_DATA_DIR "/h200-matrix.json");
    assert_non_null(installed);
    assert_string_equal(installed, again);
    free(installed);
    free(again);
}

/* The table's own layouts are the ones its names say: a swizzled case's offsets are
 * bank_swizzle of the unswizzled ones (the harness and the model share one definition). */
static void test_table_swizzles(void **state)
{
    (void)state;
    char *text = slurp(TEST_DATA_DIR "/h200-matrix.json");
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    const cJSON *c;
    int checked = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "cases")) {
        const char *name = str(c, "name");
        const char *sw = strstr(name, "_sw"), *p = strstr(name, "_p");
        if (!sw || !p || strstr(name, "frag") || strncmp(str(c, "layout"), "lane l -> row l,", 16))
            continue;
        unsigned pitch = (unsigned)atoi(p + 2);
        unsigned b = (unsigned)(sw[3] - '0'), m = (unsigned)(sw[4] - '0'), s = (unsigned)(sw[5] - '0');
        const cJSON *offs = cJSON_GetObjectItemCaseSensitive(c, "offsets");
        for (int l = 0; l < 32; l++)
            assert_int_equal((uint64_t)cJSON_GetArrayItem(offs, l)->valuedouble,
                             bank_swizzle(b, m, s, (uint64_t)l * pitch));
        checked++;
    }
    cJSON_Delete(root);
    free(text);
    assert_true(checked >= 20);
}

/* CuTe: Swizzle<B,M,S>::apply(x) = x ^ ((x & yyy_msk) >> S), yyy_msk = ((1<<B)-1) << (M+S). */
static void test_swizzle_definition(void **state)
{
    (void)state;
    /* Swizzle<3,4,3> on byte offsets: chunk (bits 4-6) ^= row (bits 7-9) */
    for (uint64_t row = 0; row < 16; row++)
        for (uint64_t chunk = 0; chunk < 8; chunk++) {
            uint64_t x = row * 128 + chunk * 16 + 6;
            uint64_t want = row * 128 + ((chunk ^ (row & 7)) * 16) + 6;
            assert_int_equal(bank_swizzle(3, 4, 3, x), want);
        }
    /* worked values: <2,4,3> uses row bits 7-8 only; <1,4,3> bit 7 */
    assert_int_equal(bank_swizzle(2, 4, 3, 5 * 128), 5 * 128 + 16);   /* row 5: 5&3 = 1 */
    assert_int_equal(bank_swizzle(1, 4, 3, 3 * 128), 3 * 128 + 16);   /* row 3: 3&1 = 1 */
    assert_int_equal(bank_swizzle(3, 3, 3, 0x1c0), 0x1c0 ^ 0x38);     /* CuTe's <3,3,3> on halves */
    assert_int_equal(bank_swizzle(0, 4, 3, 12345), 12345);            /* no bits: identity */
    /* an involution: applying it twice gives x back */
    for (uint64_t x = 0; x < 4096; x += 7)
        assert_int_equal(bank_swizzle(3, 4, 3, bank_swizzle(3, 4, 3, x)), x);
    assert_true(bank_swizzle_ok(3, 4, 3));
    assert_false(bank_swizzle_ok(3, 4, 2)); /* CuTe requires S >= B */
    assert_false(bank_swizzle_ok(-1, 4, 3));
    assert_false(bank_swizzle_ok(20, 20, 24));
}

static void full(struct bank_access *a, enum bank_instr in, unsigned x, unsigned pitch)
{
    memset(a, 0, sizeof *a);
    a->instr = (uint8_t)in;
    a->width = 16;
    a->op = in == BANK_STMATRIX ? BANK_STORE : BANK_LOAD;
    a->mask = 0xffffffffu;
    a->matrices = (uint8_t)x;
    for (int l = 0; l < 32; l++)
        a->offset[l] = (uint64_t)l * pitch;
}

static void test_matrix_rules(void **state)
{
    (void)state;
    struct bank_access a;
    struct bank_result r;
    int bad = -1;
    /* phases: one per matrix, lanes 8i..8i+7 */
    full(&a, BANK_LDMATRIX, 4, 128);
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.npasses, 4);
    assert_int_equal(r.wavefronts, 32);
    assert_int_equal(r.ways, 8);
    for (int l = 0; l < 32; l++)
        assert_int_equal(r.lane[l].pass, l / 8);
    /* lanes past 8x supply no address: not active, not checked for alignment */
    full(&a, BANK_LDMATRIX, 1, 144);
    for (int l = 8; l < 32; l++)
        a.offset[l] = 3; /* misaligned, ignored */
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 1);
    assert_false(r.lane[8].active);
    assert_true(r.lane[7].active);
    a.offset[7] = 8;
    assert_int_equal(bank_simulate(&a, &r, &bad), BANK_EALIGN);
    assert_int_equal(bad, 7);
    /* a loaded row twice is free and ldmatrix never pairs like LDS.128 */
    full(&a, BANK_LDMATRIX, 4, 0);
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 4);
    assert_int_equal(r.paired, 0);
    a.instr = BANK_PLAIN;
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 2); /* LDS.128 pairs: two 16-lane passes */
    /* errors */
    full(&a, BANK_STMATRIX, 3, 16);
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_EMATRIX);
    full(&a, BANK_STMATRIX, 2, 16);
    a.mask = 0xffff;
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_ESYNC);
    full(&a, BANK_LDMATRIX, 2, 16);
    a.width = 8;
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_EWIDTH);
    assert_non_null(strstr(bank_status_str(BANK_ESYNC), "32 lanes"));
    assert_int_equal(bank_address_lanes(&a), 0xffffu);
}

/* line cut at its tabs into at most max fields (tab[0..]); returns how many */
static int fields(char *line, char **tab, int max)
{
    int nt = 1;
    tab[0] = line;
    for (char *c = line; *c && nt < max; c++)
        if (*c == '\t')
            *c = 0, tab[nt++] = c + 1;
    return nt;
}

/* the numbers of a tab-separated field into v (at most 32); returns how many */
static int ints(const char *p, long *v)
{
    int n = 0;
    char *end;
    for (; n < 32; n++, p = end) {
        v[n] = strtol(p, &end, 10);
        if (end == p)
            break;
    }
    return n;
}

/* cp.async.cg against the 76 measured patterns (tests/data/cg: the H100's 65, the H200's 11;
 * lanes, their chunks and their sources): bank_cg_wavefronts equals every one; and the H200's
 * 12 .ca patterns with sources apart from the lanes: bank_simulate equals their wavefronts
 * and ideal. Returns the rows checked. */
static int cp_async_table(const char *path, int *ncg)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *tab[9];
        assert_int_equal(fields(line, tab, 9), 9);
        long lanes[32], chunks[32], srcs[32];
        int n = ints(tab[6], lanes);
        assert_int_equal(ints(tab[7], chunks), n);
        assert_int_equal(ints(tab[8], srcs), n);
        struct bank_access a;
        memset(&a, 0, sizeof a);
        a.instr = BANK_CPASYNC;
        a.op = BANK_STORE;
        a.width = 16;
        a.has_src = 1;
        for (int i = 0; i < n; i++) {
            a.mask |= 1u << lanes[i];
            a.offset[lanes[i]] = (uint64_t)chunks[i] * 16;
            a.src[lanes[i]] = (uint32_t)(4096 + srcs[i] * 16);
        }
        int want = atoi(tab[3]), got;
        if (!strcmp(tab[0], "cg")) {
            struct bank_cg_detail d;
            got = bank_cg_wavefronts(&a, &d);
            assert_true(d.groups <= d.chunks && d.mixed <= d.groups && got >= d.groups);
            if (d.ideal != atoi(tab[4]))
                fail_msg("cp.async.cg %s (%s): ideal %d, measured %s", tab[1], tab[5], d.ideal,
                         tab[4]);
            (*ncg)++;
        } else {
            struct bank_result r;
            assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
            got = r.wavefronts;
            if ((int)bank_ideal(&a, &r) != atoi(tab[4]))
                fail_msg("cp.async.ca %s (%s): ideal %u, measured %s", tab[1], tab[5],
                         bank_ideal(&a, &r), tab[4]);
        }
        if (got != want)
            fail_msg("cp.async.%s %s (%s): model %d wavefronts, measured %d", tab[0], tab[1],
                     tab[5], got, want);
        rows++;
    }
    fclose(f);
    return rows;
}

static void test_cp_async_cg_h100(void **state)
{
    (void)state;
    int ncg = 0;
    assert_int_equal(cp_async_table(TEST_DATA_DIR "/cg/h100-cp-async-cg.tsv", &ncg), 65);
    assert_int_equal(cp_async_table(TEST_DATA_DIR "/cg/h200-cp-async-more.tsv", &ncg), 23);
    assert_int_equal(ncg, 76);
}

/* cp.async.ca against the H100's 26 patterns (tests/data/cg/h100-cp-async.tsv: one warp, 16
 * bytes a lane from consecutive global sources, lane l to chunk CHUNKS[l]): every wavefront
 * count and ideal equal. The table's .cg rows are only counted here: call 21 measured them
 * again with the sources (h100-cp-async-cg.tsv, test_cp_async_cg_h100). */
static void test_cp_async_h100(void **state)
{
    (void)state;
    FILE *f = fopen(TEST_DATA_DIR "/cg/h100-cp-async.tsv", "r");
    assert_non_null(f);
    char line[2048];
    int nca = 0, ncg = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *tab[7];
        assert_int_equal(fields(line, tab, 7), 7);
        const char *kind = tab[0];
        if (!strcmp(kind, "cg")) {
            ncg++;
            continue;
        }
        assert_string_equal(kind, "ca");
        int wf = atoi(tab[3]), ideal = atoi(tab[4]);
        struct bank_access a;
        struct bank_result r;
        memset(&a, 0, sizeof a);
        a.instr = BANK_CPASYNC;
        a.op = BANK_STORE;
        a.width = 16;
        char *p = tab[6], *end;
        for (int l = 0; l < 32; l++, p = end) {
            long c = strtol(p, &end, 10);
            if (end == p)
                break;
            a.offset[l] = (uint64_t)c * 16;
            a.mask |= 1u << l;
        }
        assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
        if (r.wavefronts != wf || (int)bank_ideal(&a, &r) != ideal)
            fail_msg("cp.async.ca %s (%s): model %d wavefronts ideal %u, the H100 %d ideal %d",
                     tab[1], tab[5], r.wavefronts, bank_ideal(&a, &r), wf, ideal);
        nca++;
    }
    fclose(f);
    assert_int_equal(nca, 26);
    assert_int_equal(ncg, 26);
}

static void test_cp_async_rules(void **state)
{
    (void)state;
    struct bank_access a;
    struct bank_result r;
    memset(&a, 0, sizeof a);
    a.instr = BANK_CPASYNC;
    a.op = BANK_STORE;
    a.mask = 0xffffffffu;
    a.width = 4;
    /* every lane at byte 0: 32 writes, where st.shared merges them into one */
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 32);
    assert_int_equal(r.conflicts, 31);
    assert_int_equal(r.pass[0].cell[0].nwords, 32);
    a.instr = BANK_PLAIN;
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 1);
    /* 16 bytes, contiguous: four passes; sources 128 bytes apart all start in one bank */
    a.instr = BANK_CPASYNC;
    a.width = 16;
    for (int l = 0; l < 32; l++)
        a.offset[l] = (uint64_t)l * 16;
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 4);
    a.has_src = 1;
    for (int l = 0; l < 32; l++)
        a.src[l] = (uint32_t)l * 128;
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 32);
    assert_int_equal(r.conflicts, 28);
    /* two lines but distinct source banks: free (the line is not what counts) */
    a.width = 4;
    for (int l = 0; l < 32; l++) {
        a.offset[l] = (uint64_t)l * 4;
        a.src[l] = (uint32_t)(4 * l + 128 * (l % 2));
    }
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 1);
    for (int l = 0; l < 32; l++)
        a.src[l] = 0; /* one source word for every lane */
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 32);
    a.width = 2;
    assert_int_equal(bank_simulate(&a, &r, NULL), BANK_EWIDTH);
}

/* The table entry called name. */
static const cJSON *table_case(const cJSON *root, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "cases"))
        if (!strcmp(str(c, "name"), name))
            return c;
    return NULL;
}

/* Patterns in the language for table entries: each gives the entry's per-lane offsets, and
 * the model's figure for it is the measured one. */
static void test_patterns_give_table(void **state)
{
    (void)state;
    static const struct { const char *name, *text; } pats[] = {
        {"ldsm_x4_p128", "__shared__ half tile[32][64]; ldmatrix.x4(tile[lane][0])"},
        {"ldsm_x4_p144", "__shared__ half tile[32][72]; ldmatrix.x4(&tile[lane][0])"},
        {"ldsm_x4_p128_sw343", "__shared__ half t[32 * 64]; "
                               "ldmatrix.x4(t[swizzle(3, 4, 3, lane * 128) / 2])"},
        {"ldsm_x2_trans_p128_sw243", "__shared__ half t[32 * 64]; "
                                     "ldmatrix.x2.trans(t[swizzle(2, 4, 3, lane * 128) / 2])"},
        {"ldsm_x4_p128_sw343_frag", "__shared__ half t[32 * 64]; int r = lane % 16; "
                                    "int c = lane / 16; "
                                    "ldmatrix.x4(t[swizzle(3, 4, 3, r * 128 + c * 16) / 2])"},
        /* CuTe on half elements: Swizzle<1,3,3> of the element index = <1,4,3> of the byte */
        {"stsm_x4_p128_sw143", "__shared__ half t[32 * 64]; "
                               "stmatrix.x4(t[swizzle(1, 3, 3, lane * 64)])"},
        {"stsm_x1_p128", "__shared__ half t[32][64]; stmatrix.x1(t[lane][0])"},
        {"cpa_ca16_stride2", "__shared__ float4 s[64]; cp.async16(s[2 * lane])"},
        {"cpa_ca4_same", "__shared__ float s[64]; cp.async4(s[0])"},
        {"cpa_ca8_half", "__shared__ float2 s[64]; if (lane < 16) cp.async8(s[lane])"},
    };
    char *text = slurp(TEST_DATA_DIR "/h200-matrix.json");
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        const cJSON *c = table_case(root, pats[i].name);
        assert_non_null(c);
        struct bank_access want, got;
        assert_int_equal(access_of(c, &want), 0);
        struct pattern *p = NULL;
        struct bl_err err;
        if (pattern_parse(pats[i].text, &p, &err) != 0)
            fail_msg("%s: %s", pats[i].text, err.msg);
        struct pattern_env env;
        pattern_env_init(&env);
        if (pattern_eval(p, &env, 0, &got, NULL, &err) != 0)
            fail_msg("%s: %s", pats[i].text, err.msg);
        assert_int_equal(got.instr, want.instr);
        assert_int_equal(got.matrices, want.matrices);
        assert_int_equal(got.trans, want.trans);
        assert_int_equal(got.width, want.width);
        assert_int_equal(got.mask, want.mask);
        assert_int_equal(got.op, want.op);
        uint32_t used = bank_address_lanes(&got);
        for (int l = 0; l < 32; l++)
            if (used >> l & 1u)
                assert_int_equal(got.offset[l], want.offset[l]);
        struct bank_result r;
        assert_int_equal(bank_simulate(&got, &r, NULL), BANK_OK);
        assert_int_equal(r.wavefronts, (int)(num(c, "wavefronts") + 0.5));
        pattern_free(p);
    }
    cJSON_Delete(root);
    free(text);
}

/* What the language refuses, and says why. */
static void test_pattern_errors(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; } bad[] = {
        {"__shared__ half t[4096]; if (lane < 8) ldmatrix.x1(t[0])", "cannot follow 'if"},
        {"__shared__ half t[4096]; ldmatrix.x3(t[lane * 64])", "unknown part '.x3'"},
        {"__shared__ half t[4096]; ldmatrix(t[lane * 64])", ""},
        {"__shared__ half t[4096]; stmatrix.trans(t[lane * 64])", "needs .x1, .x2 or .x4"},
        {"__shared__ float4 s[64]; cp.async.cg16(s[lane])", "not in the pattern language"},
        {"__shared__ float4 s[64]; cp.async(s[lane])", "needs its size"},
        {"__shared__ half t[4096]; ldmatrix.x4(lane)", "takes a shared memory element"},
        {"__shared__ half t[4096]; ldmatrix.x4(t[t[0]])", ""},
        {"__shared__ float s[64]; s[swizzle(3, 4, 3)]", "between the arguments"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pattern *p = NULL;
        struct bl_err err;
        int rc = pattern_parse(bad[i].text, &p, &err);
        if (rc == 0) {
            struct pattern_env env;
            struct bank_access acc;
            pattern_env_init(&env);
            rc = pattern_eval(p, &env, 0, &acc, NULL, &err);
            pattern_free(p);
        }
        if (rc == 0)
            fail_msg("accepted: %s", bad[i].text);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("%s: said '%s'", bad[i].text, err.msg);
    }
    /* evaluation errors: a misaligned row, a bad swizzle, a partial warp */
    static const struct { const char *text, *msg; unsigned block; } ev[] = {
        {"__shared__ half t[4096]; ldmatrix.x4(t[lane * 64 + 4])", "misaligned 16-byte", 32},
        {"__shared__ half t[4096]; ldmatrix.x4(t[swizzle(3, 4, 2, lane)])", "0 <= B <= S", 32},
        {"__shared__ half t[252]; ldmatrix.x4(t[lane * 8])", "past its 504 bytes", 32},
    };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        struct pattern *p = NULL;
        struct bl_err err;
        assert_int_equal(pattern_parse(ev[i].text, &p, &err), 0);
        struct pattern_env env;
        struct bank_access acc;
        pattern_env_init(&env);
        env.block[0] = ev[i].block;
        if (pattern_eval(p, &env, 0, &acc, NULL, &err) == 0)
            fail_msg("accepted: %s", ev[i].text);
        if (!strstr(err.msg, ev[i].msg))
            fail_msg("%s: said '%s'", ev[i].text, err.msg);
        pattern_free(p);
    }
    /* a block of 16 threads: the pattern evaluates, the model refuses (.sync.aligned) */
    struct pattern *p = NULL;
    struct bl_err err;
    assert_int_equal(pattern_parse("__shared__ half t[4096]; ldmatrix.x2(t[lane * 64])", &p, &err), 0);
    struct pattern_env env;
    struct bank_access acc;
    struct bank_result r;
    pattern_env_init(&env);
    env.block[0] = 16;
    assert_int_equal(pattern_eval(p, &env, 0, &acc, NULL, &err), 0);
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_ESYNC);
    pattern_free(p);
    /* a name swizzle without '(' is the learner's own (ldmatrix.cu has --arg swizzle) */
    assert_int_equal(pattern_parse("__shared__ float t[64]; t[swizzle ? lane : 0]", &p, &err), 0);
    pattern_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h200_matrix_table),
        cmocka_unit_test(test_table_swizzles),
        cmocka_unit_test(test_swizzle_definition),
        cmocka_unit_test(test_matrix_rules),
        cmocka_unit_test(test_cp_async_rules),
        cmocka_unit_test(test_cp_async_h100),
        cmocka_unit_test(test_cp_async_cg_h100),
        cmocka_unit_test(test_patterns_give_table),
        cmocka_unit_test(test_pattern_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
