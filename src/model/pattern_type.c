/* pattern_type.c: the type table of the pattern language: the builtin scalar and vector types
 * with their members, C-style struct layout, integer keyword combinations, typedef names, and
 * pat_parse_type. Depends on pattern_parse.c and pattern_text.c; not on expressions. */
#include "pattern_internal.h"

#include <string.h>

struct builtin_type {
    const char *name;
    int kind;
    unsigned size, align;
    const char *comp;   /* vector component type */
    int ncomp;
};

static const struct builtin_type builtin_types[] = {
    {"char", TY_INT, 1, 1, NULL, 0}, {"unsigned char", TY_INT, 1, 1, NULL, 0},
    {"short", TY_INT, 2, 2, NULL, 0}, {"unsigned short", TY_INT, 2, 2, NULL, 0},
    {"int", TY_INT, 4, 4, NULL, 0}, {"unsigned", TY_INT, 4, 4, NULL, 0},
    {"long", TY_INT, 8, 8, NULL, 0}, {"unsigned long", TY_INT, 8, 8, NULL, 0},
    {"long long", TY_INT, 8, 8, NULL, 0}, {"unsigned long long", TY_INT, 8, 8, NULL, 0},
    {"float", TY_FLT, 4, 4, NULL, 0}, {"double", TY_FLT, 8, 8, NULL, 0},
    {"half", TY_FLT, 2, 2, NULL, 0}, {"__half", TY_FLT, 2, 2, NULL, 0},
    {"half2", TY_VEC, 4, 4, "half", 2}, {"__half2", TY_VEC, 4, 4, "half", 2},
    {"float2", TY_VEC, 8, 8, "float", 2}, {"float3", TY_VEC, 12, 4, "float", 3},
    {"float4", TY_VEC, 16, 16, "float", 4}, {"int2", TY_VEC, 8, 8, "int", 2},
    {"int3", TY_VEC, 12, 4, "int", 3}, {"int4", TY_VEC, 16, 16, "int", 4},
    {"uint2", TY_VEC, 8, 8, "unsigned", 2}, {"uint4", TY_VEC, 16, 16, "unsigned", 4},
    {"double2", TY_VEC, 16, 16, "double", 2}, {"longlong2", TY_VEC, 16, 16, "long long", 2},
    /* what an instruction's address is checked as; no text can name them (a space or a dot) */
    {"matrix row", TY_INT, 16, 16, NULL, 0}, {"cp.async", TY_INT, 4, 4, NULL, 0},
    {"cp.async", TY_INT, 8, 8, NULL, 0}, {"cp.async", TY_INT, 16, 16, NULL, 0},
};
#define NBUILTIN_TYPES ((int)(sizeof builtin_types / sizeof builtin_types[0]))

int pat_find_type(const struct pattern *p, const char *name)
{
    for (int i = 0; i < NBUILTIN_TYPES && i < p->ntypes; i++)
        if (p->type[i].name[0] == name[0] && strcmp(p->type[i].name, name) == 0)
            return i;
    return -1;
}

int pat_instr_type(const struct pattern *p, const char *name, unsigned size)
{
    for (int i = 0; i < NBUILTIN_TYPES && i < p->ntypes; i++)
        if (p->type[i].size == size && strcmp(p->type[i].name, name) == 0)
            return i;
    return -1;
}

void pat_init_types(struct pattern *p)
{
    static const char comp_names[] = "xyzw";
    p->ntypes = 0;
    p->nfields = 0;
    for (int i = 0; i < NBUILTIN_TYPES; i++) {
        struct ctype *t = &p->type[p->ntypes++];
        const struct builtin_type *b = &builtin_types[i];
        pat_copy_name(t->name, b->name);
        t->kind = b->kind;
        t->size = b->size;
        t->align = b->align;
        t->nfields = 0;
        t->field0 = p->nfields;
        if (b->comp) {
            int ct = pat_find_type(p, b->comp);
            for (int k = 0; k < b->ncomp; k++) {
                struct field *f = &p->field[p->nfields++];
                f->name[0] = comp_names[k];
                f->name[1] = 0;
                f->type = ct;
                f->off = (unsigned)k * p->type[ct].size;
            }
            t->nfields = b->ncomp;
        }
    }
}

static const char *const int_words[] = {"char", "short", "int", "long", "unsigned", "signed", NULL};

static int is_int_word(const struct parser *ps, const struct token *t)
{
    for (int i = 0; int_words[i]; i++)
        if (tok_is(ps, t, int_words[i]))
            return 1;
    return 0;
}

/* Does a type start at token t? */
int pat_is_type_start(const struct parser *ps, const struct token *t)
{
    if (t->kind != TK_IDENT)
        return 0;
    if (is_int_word(ps, t) || tok_is(ps, t, "struct") || tok_is(ps, t, "const") ||
        tok_is(ps, t, "volatile"))
        return 1;
    char name[PATTERN_NAME_MAX];
    tok_name(ps, t, name);
    if (pat_find_local(ps->p, name) >= 0 || pat_find_array(ps->p, name) >= 0)
        return 0;
    return pat_find_type(ps->p, name) >= 0 || pat_find_typedef(ps->p, name) >= 0;
}

int pat_find_field(const struct pattern *p, int type, const char *name)
{
    const struct ctype *t = &p->type[type];
    for (int k = 0; k < t->nfields; k++)
        if (strcmp(p->field[t->field0 + k].name, name) == 0)
            return t->field0 + k;
    return -1;
}

/* `struct TAG` without a body: a struct declared before. */
static int struct_by_tag(struct parser *ps, const struct token *t, const char *tag, int *type)
{
    const struct pattern *p = ps->p;
    char full[PATTERN_NAME_MAX + 8];
    bl_fmt(full, sizeof full, "struct %s", tag);
    for (int k = NBUILTIN_TYPES; k < p->ntypes; k++)
        if (strcmp(p->type[k].name, full) == 0) {
            *type = k;
            return 0;
        }
    return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_UNKNOWN_TYPE_STRUCT, tag);
}

/* One member declaration of a struct body, `TYPE a, b;`: appends its members to fl (st holds
 * the count so far), each laid out C-style at *off, and raises st's alignment. */
static int parse_member_decl(struct parser *ps, struct ctype *st, struct field *fl,
                             unsigned long long *off)
{
    struct pattern *p = ps->p;
    int ft;
    if (!pat_is_type_start(ps, peek(ps, 0)))
        return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, peek(ps, 0)->len, -1),
                       PAT_EXPECTED_A_MEMBER_TYPE_BUT, pat_tok_desc(ps, peek(ps, 0)));
    ps->depth++;
    int rt = pat_parse_type(ps, &ft);
    ps->depth--;
    if (rt < 0)
        return -1;
    for (;;) {
        const struct token *nt = peek(ps, 0);
        char fname[PATTERN_NAME_MAX];
        if (nt->kind != TK_IDENT)
            return bl_fail(ps->err, -1, BL_AT(nt->pos, nt->len, -1), PAT_EXPECTED_A_MEMBER_NAME_BUT,
                            pat_tok_desc(ps, nt));
        tok_name(ps, nt, fname);
        for (int k = 0; k < st->nfields; k++)
            if (strcmp(fl[k].name, fname) == 0)
                return bl_fail(ps->err, -1, BL_AT(nt->pos, nt->len, -1), PAT_DUPLICATE_MEMBER, fname);
        if (st->nfields >= MAX_STRUCT_FIELDS)
            return bl_fail(ps->err, -1, BL_AT(nt->pos, nt->len, -1),
                            PAT_TOO_MANY_STRUCT_MEMBERS_AT, MAX_STRUCT_FIELDS);
        ps->i++;
        const struct ctype *ftp = &p->type[ft];
        *off = (*off + ftp->align - 1) / ftp->align * ftp->align;
        struct field *f = &fl[st->nfields];
        pat_copy_name(f->name, fname);
        f->type = ft;
        f->off = (unsigned)*off;
        *off += ftp->size;
        if (ftp->align > st->align)
            st->align = ftp->align;
        st->nfields++;
        if (is_punct(peek(ps, 0), '['))
            return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, 1, -1), PAT_ARRAY_MEMBERS_ARE_NOT_SUPPORTED);
        if (!is_punct(peek(ps, 0), ','))
            break;
        ps->i++;
    }
    return pat_expect(ps, ';', "after the member");
}

/* struct [TAG] { members } or struct TAG: the type's index in *type. */
static int parse_struct(struct parser *ps, int *type)
{
    struct pattern *p = ps->p;
    const struct token *kw = peek(ps, 0);
    if (ps->depth + 1 > PATTERN_MAX_DEPTH)
        return bl_fail(ps->err, -1, BL_AT(kw->pos, kw->len, -1), PAT_STRUCTS_NESTED_TOO_DEEPLY);
    ps->i++;
    char tag[PATTERN_NAME_MAX] = "";
    const struct token *t = peek(ps, 0);
    if (t->kind == TK_IDENT) {
        tok_name(ps, t, tag);
        ps->i++;
        if (!is_punct(peek(ps, 0), '{'))
            return struct_by_tag(ps, t, tag, type);
    }
    if (pat_expect(ps, '{', "after 'struct'") < 0)
        return -1;
    if (p->ntypes >= MAX_TYPES)
        return bl_fail(ps->err, -1, BL_AT(kw->pos, kw->len, -1), PAT_TOO_MANY_STRUCT_TYPES_AT,
                        MAX_TYPES - NBUILTIN_TYPES);
    struct ctype st;
    memset(&st, 0, sizeof st);
    st.kind = TY_STRUCT;
    st.align = 1;
    /* members are collected here and appended after '}': nested structs add theirs first */
    struct field fl[MAX_STRUCT_FIELDS];
    if (tag[0]) {
        size_t tl = strlen(tag);
        if (tl + 7 >= sizeof st.name)
            return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_STRUCT_TAG_IS_TOO_LONG, tag);
        memcpy(st.name, "struct ", 7);
        memcpy(st.name + 7, tag, tl + 1);
    } else {
        memcpy(st.name, "struct", 7);
    }
    unsigned long long off = 0;
    while (!is_punct(peek(ps, 0), '}'))
        if (parse_member_decl(ps, &st, fl, &off) < 0)
            return -1;
    ps->i++; /* '}' */
    if (st.nfields == 0)
        return bl_fail(ps->err, -1, BL_AT(kw->pos, peek(ps, -1)->pos + 1 - kw->pos, -1), PAT_EMPTY_STRUCT);
    if (p->nfields + st.nfields > MAX_FIELDS || p->ntypes >= MAX_TYPES)
        return bl_fail(ps->err, -1, BL_AT(kw->pos, kw->len, -1), PAT_TOO_MANY_STRUCT_TYPES_OR);
    if (off > PATTERN_STATIC_LIMIT)
        return bl_fail(ps->err, -1, BL_AT(kw->pos, kw->len, -1), PAT_STRUCT_IS_LARGER_THAN_BYTES,
                        PATTERN_STATIC_LIMIT);
    st.field0 = p->nfields;
    memcpy(&p->field[p->nfields], fl, sizeof fl[0] * (size_t)st.nfields);
    p->nfields += st.nfields;
    st.size = (unsigned)((off + st.align - 1) / st.align * st.align);
    p->type[p->ntypes] = st;
    *type = p->ntypes++;
    return 0;
}

/* A type: qualifiers, integer keyword combinations, named types, typedefs, structs. */
int pat_parse_type(struct parser *ps, int *type)
{
    struct pattern *p = ps->p;
    while (tok_is(ps, peek(ps, 0), "const") || tok_is(ps, peek(ps, 0), "volatile"))
        ps->i++;
    const struct token *t = peek(ps, 0);
    if (tok_is(ps, t, "struct"))
        return parse_struct(ps, type);
    if (is_int_word(ps, t)) {
        int nunsigned = 0, nsigned = 0, nchar = 0, nshort = 0, nint = 0, nlong = 0;
        const struct token *first = t;
        while (is_int_word(ps, peek(ps, 0)) || tok_is(ps, peek(ps, 0), "const") ||
               tok_is(ps, peek(ps, 0), "volatile")) {
            const struct token *w = peek(ps, 0);
            if (tok_is(ps, w, "unsigned")) nunsigned++;
            else if (tok_is(ps, w, "signed")) nsigned++;
            else if (tok_is(ps, w, "char")) nchar++;
            else if (tok_is(ps, w, "short")) nshort++;
            else if (tok_is(ps, w, "int")) nint++;
            else if (tok_is(ps, w, "long")) nlong++;
            ps->i++;
        }
        const struct token *last = peek(ps, -1);
        int bad = nunsigned + nsigned > 1 || nchar + nshort + (nlong > 0) > 1 || nint > 1 ||
                  nlong > 2 || (nchar && nint);
        const char *name = NULL;
        if (!bad) {
            if (nchar) name = nunsigned ? "unsigned char" : "char";
            else if (nshort) name = nunsigned ? "unsigned short" : "short";
            else if (nlong == 2) name = nunsigned ? "unsigned long long" : "long long";
            else if (nlong == 1) name = nunsigned ? "unsigned long" : "long";
            else name = nunsigned ? "unsigned" : "int";
        }
        if (!name)
            return bl_fail(ps->err, -1, BL_AT(first->pos, last->pos + last->len - first->pos, -1),
                            PAT_INVALID_COMBINATION_OF_TYPE_WORDS);
        *type = pat_find_type(p, name);
        return 0;
    }
    if (t->kind != TK_IDENT) {
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_EXPECTED_A_TYPE_BUT_FOUND,
                        pat_tok_desc(ps, t));
    }
    char name[PATTERN_NAME_MAX];
    tok_name(ps, t, name);
    int k = pat_find_typedef(p, name);
    if (k >= 0) {
        *type = p->tdef[k].type;
    } else if ((k = pat_find_type(p, name)) >= 0) {
        *type = k;
    } else {
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_UNKNOWN_TYPE, name);
    }
    ps->i++;
    while (tok_is(ps, peek(ps, 0), "const") || tok_is(ps, peek(ps, 0), "volatile"))
        ps->i++;
    return 0;
}

/* The '*' after a type, if any: 1 when there is one, 0 when not, -1 for a second one (no
 * pointers to pointers). qualifiers: also skip `__restrict__` and `const` after it (a
 * declarator; a cast takes none). */
int pat_parse_pointer(struct parser *ps, int qualifiers)
{
    int ptr = 0;
    while (is_punct(peek(ps, 0), '*')) {
        if (ptr)
            return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, 1, -1),
                            PAT_POINTERS_TO_POINTERS_ARE_NOT);
        ptr = 1;
        ps->i++;
        while (qualifiers &&
               (tok_is(ps, peek(ps, 0), "__restrict__") || tok_is(ps, peek(ps, 0), "const")))
            ps->i++;
    }
    return ptr;
}
