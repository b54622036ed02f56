/* msg.c: the message table made from msg.def, and messages kept as an id with its arguments
 * (msg.h). The conversions of a format are read here, not by the C library, so that the
 * arguments can be kept and rendered again in the other language. libc only. */
#include "msg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

static const struct {
    const char *name, *en, *zh;
} table[BL_MSG_COUNT] = {
    [BL_MSG_NONE] = {"NONE", "", ""},
#define M(id, en, zh) [id] = {#id, en, zh},
#include "msg.def"
#undef M
};

const char *bl_msg_format(int id, enum bl_lang lang)
{
    if (id <= BL_MSG_NONE || id >= BL_MSG_COUNT)
        return "";
    return lang == BL_LANG_ZH ? table[id].zh : table[id].en;
}

const char *bl_msg_name(int id)
{
    return id > BL_MSG_NONE && id < BL_MSG_COUNT ? table[id].name : NULL;
}

/* One conversion of a format: where it starts and ends, whether the width or precision is
 * '*', and the kind of argument it takes ('i' 'u' 'f' 's', 0 for %%). */
struct spec {
    const char *start, *end;
    int star_width, star_prec;
    int prec;         /* a precision written as digits, -1 when none */
    int pos;          /* %N$: the Nth argument (1-based), 0 when the next one */
    const char *body; /* after the '%' and the N$ */
    char kind;
    char len[3];      /* length modifier as written: "", "h", "hh", "l", "ll", "z", ... */
    char conv;
};

/* the next conversion at or after f, or NULL when none is left */
static const char *next_spec(const char *f, struct spec *sp)
{
    const char *p = strchr(f, '%');
    if (!p)
        return NULL;
    memset(sp, 0, sizeof *sp);
    sp->prec = -1;
    sp->start = p++;
    if (*p == '%') {
        sp->end = p + 1;
        return p + 1;
    }
    sp->body = p;
    const char *d = p;
    int pos = 0;
    while (*d >= '0' && *d <= '9' && pos < 100)
        pos = pos * 10 + (*d++ - '0');
    if (*d == '$' && d > p && pos > 0) {
        sp->pos = pos;
        p = sp->body = d + 1;
    }
    while (*p && strchr("-+ #0", *p))
        p++;
    if (*p == '*') {
        sp->star_width = 1;
        p++;
    }
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p == '.') {
        p++;
        if (*p == '*') {
            sp->star_prec = 1;
            p++;
        } else {
            sp->prec = 0;
        }
        while (*p >= '0' && *p <= '9')
            sp->prec = sp->prec * 10 + (*p++ - '0');
    }
    size_t k = 0;
    while (*p && strchr("hlzjtL", *p) && k < 2)
        sp->len[k++] = *p++;
    sp->conv = *p;
    sp->end = *p ? p + 1 : p;
    switch (*p) {
    case 'd': case 'i': case 'c': sp->kind = 'i'; break;
    case 'u': case 'x': case 'X': case 'o': sp->kind = 'u'; break;
    case 'f': case 'F': case 'g': case 'G': case 'e': case 'E': sp->kind = 'f'; break;
    case 's': sp->kind = 's'; break;
    case 'M': sp->kind = 'm'; break;
    default: sp->kind = 0; sp->conv = 0; break; /* not one this table uses: copied as text */
    }
    return sp->end;
}

static void keep_int(struct bl_msg *m, long long v)
{
    if (m->nargs < BL_MSG_ARGS) {
        m->arg[m->nargs].kind = 'i';
        m->arg[m->nargs++].v.i = v;
    }
}

/* ---- a message nested in a message (%M): kept in the outer's sbuf as a packed message, its
 * id (2 bytes, little end first), its count of arguments (1 byte), then each argument: its
 * kind (1 byte) and 8 bytes of value ('i' 'u' 'f'), a NUL-terminated string ('s') or a packed
 * message ('m'). */

#define NEST_DEPTH 32

/* the length of the packed message at p (avail bytes), 0 when it is not one */
static size_t packed_len(const char *p, size_t avail, int depth)
{
    if (avail < 3 || depth > NEST_DEPTH)
        return 0;
    int nargs = (unsigned char)p[2];
    if (nargs > BL_MSG_ARGS)
        return 0;
    size_t o = 3;
    for (int i = 0; i < nargs; i++) {
        if (o >= avail)
            return 0;
        char k = p[o++];
        if (k == 'i' || k == 'u' || k == 'f') {
            o += 8;
        } else if (k == 's') {
            const char *z = memchr(p + o, 0, avail - o);
            if (!z)
                return 0;
            o = (size_t)(z - p) + 1;
        } else if (k == 'm') {
            size_t l = packed_len(p + o, avail - o, depth + 1);
            if (!l)
                return 0;
            o += l;
        } else {
            return 0;
        }
        if (o > avail)
            return 0;
    }
    return o;
}

/* in packed into dst (room bytes): its length, 0 when it does not fit */
static size_t pack(const struct bl_msg *in, char *dst, size_t room)
{
    int id = in && in->id > BL_MSG_NONE && in->id < BL_MSG_COUNT ? in->id : BL_MSG_NONE;
    int nargs = id ? in->nargs : 0;
    if (room < 3)
        return 0;
    dst[0] = (char)(id & 0xff), dst[1] = (char)(id >> 8), dst[2] = (char)nargs;
    size_t o = 3;
    for (int i = 0; i < nargs; i++) {
        const struct bl_msg_arg *a = &in->arg[i];
        const char *from = (const char *)&a->v;
        size_t k = 8;
        if (a->kind == 's' || a->kind == 'm') {
            if (a->v.s >= sizeof in->sbuf)
                return 0;
            from = in->sbuf + a->v.s;
            size_t avail = sizeof in->sbuf - a->v.s;
            k = a->kind == 's' ? strnlen(from, avail) + 1 : packed_len(from, avail, 1);
            if (!k || k > avail)
                return 0;
        }
        if (o + 1 + k > room)
            return 0;
        dst[o++] = a->kind;
        memcpy(dst + o, from, k);
        o += k;
    }
    return o;
}

/* the packed message at p (avail bytes) into m: 1, or 0 (m empty) when it is not one */
static int unpack(const char *p, size_t avail, struct bl_msg *m)
{
    memset(m, 0, sizeof *m);
    if (!packed_len(p, avail, 1))
        return 0;
    int id = (unsigned char)p[0] | (unsigned char)p[1] << 8;
    if (id <= BL_MSG_NONE || id >= BL_MSG_COUNT)
        return 0;
    size_t o = 3, used = 1;
    int nargs = (unsigned char)p[2];
    for (int i = 0; i < nargs; i++) {
        struct bl_msg_arg *a = &m->arg[i];
        a->kind = p[o++];
        size_t k = 8;
        if (a->kind == 's')
            k = strlen(p + o) + 1;
        else if (a->kind == 'm')
            k = packed_len(p + o, avail - o, 2);
        if (a->kind == 's' || a->kind == 'm') {
            if (used + k > sizeof m->sbuf)
                return memset(m, 0, sizeof *m), 0;
            memcpy(m->sbuf + used, p + o, k);
            a->v.s = (unsigned)used;
            used += k;
        } else {
            memcpy(&a->v, p + o, 8);
        }
        o += k;
    }
    m->id = id;
    m->nargs = nargs;
    return 1;
}

/* reads one conversion's argument (and its '*' values) from ap into m */
static void keep_arg(struct bl_msg *m, const struct spec *sp, va_list *ap, size_t *used)
{
    int prec = sp->prec;            /* a string is read no further than its precision */
    if (sp->star_width)
        keep_int(m, va_arg(*ap, int));
    if (sp->star_prec) {
        prec = va_arg(*ap, int);
        keep_int(m, prec);
    }
    struct bl_msg_arg a = {.kind = sp->kind};
    int l = !strcmp(sp->len, "l"), ll = !strcmp(sp->len, "ll") || !strcmp(sp->len, "j"),
        z = !strcmp(sp->len, "z") || !strcmp(sp->len, "t");
    if (sp->kind == 'i')
        a.v.i = ll ? va_arg(*ap, long long) : l ? va_arg(*ap, long) : z ? (long long)va_arg(*ap, size_t)
                                                                          : va_arg(*ap, int);
    else if (sp->kind == 'u')
        a.v.u = ll ? va_arg(*ap, unsigned long long) : l ? va_arg(*ap, unsigned long)
              : z ? va_arg(*ap, size_t) : va_arg(*ap, unsigned);
    else if (sp->kind == 'f')
        a.v.f = va_arg(*ap, double);
    else if (sp->kind == 'm') {
        const struct bl_msg *in = va_arg(*ap, const struct bl_msg *);
        size_t k = pack(in, m->sbuf + *used, sizeof m->sbuf - *used);
        if (!k) /* it does not fit: an empty message where it stands */
            k = pack(NULL, m->sbuf + *used, sizeof m->sbuf - *used);
        a.v.s = k ? (unsigned)*used : 0;
        *used += k;
    } else if (sp->kind == 's') {
        const char *s = va_arg(*ap, const char *);
        if (!s)
            s = "(null)";
        size_t room = sizeof m->sbuf - *used;
        a.v.s = (unsigned)*used;
        if (room > 0) {
            size_t k = 0;
            while (s[k] && (prec < 0 || k < (size_t)prec))
                k++;
            if (k >= room)
                k = room - 1;
            memcpy(m->sbuf + *used, s, k);
            m->sbuf[*used + k] = 0;
            *used += k + 1;
        }
    } else
        return;
    if (m->nargs < BL_MSG_ARGS)
        m->arg[m->nargs++] = a;
}

size_t bl_msg_vset(struct bl_msg *m, char *en, size_t n, int id, va_list ap)
{
    const char *f = bl_msg_format(id, BL_LANG_EN);
    struct bl_msg own;
    int nests = strstr(f, "%M") != NULL;  /* not printf's: the English rendered from m */
    if (nests && !m)
        m = &own;
    va_list cp;
    va_copy(cp, ap);
    size_t k = en && n && !nests ? bl_vfmt(en, n, f, cp) : 0;
    va_end(cp);
    if (m) {
        memset(m, 0, sizeof *m);
        m->id = id > BL_MSG_NONE && id < BL_MSG_COUNT ? id : BL_MSG_NONE;
        m->sbuf[0] = 0;
        size_t used = 1; /* offset 0 is the empty string */
        struct spec sp;
        va_list rd;
        va_copy(rd, ap);
        for (const char *p = f; (p = next_spec(p, &sp));)
            if (sp.kind)
                keep_arg(m, &sp, &rd, &used);
        va_end(rd);
    }
    if (nests && en && n)
        k = bl_msg_render(m, BL_LANG_EN, en, n);
    return k;
}

size_t bl_msg_set(struct bl_msg *m, char *en, size_t n, int id, ...)
{
    va_list ap;
    va_start(ap, id);
    size_t k = bl_msg_vset(m, en, n, id, ap);
    va_end(ap);
    return k;
}

/* ---- reading a message back from its English text: a message given as the argument of
 * another, or kept as text only by the part that made it (the counters' reasons) */

/* the end of a number of kind k ('i', 'u', 'x', 'f') at t, or NULL */
static const char *number_end(const char *t, char k)
{
    const char *p = t;
    if ((k == 'i' || k == 'f') && *p == '-')
        p++;
    const char *d = p;
    if (k == 'x')
        while (*p && strchr("0123456789abcdefABCDEF", *p))
            p++;
    else
        while (*p >= '0' && *p <= '9')
            p++;
    if (k == 'f' && *p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    return p > d ? p : NULL;
}

static void keep_text(struct bl_msg *m, const char *t, size_t k, size_t *used)
{
    if (m->nargs >= BL_MSG_ARGS)
        return;
    struct bl_msg_arg a = {.kind = 's'};
    size_t room = sizeof m->sbuf - *used;
    a.v.s = (unsigned)*used;
    if (room > 0) {
        if (k >= room)
            k = room - 1;
        memcpy(m->sbuf + *used, t, k);
        m->sbuf[*used + k] = 0;
        *used += k + 1;
    }
    m->arg[m->nargs++] = a;
}

/* t matches the format f from here: its arguments added to m; 0 when it does not */
static int match(const char *f, const char *t, struct bl_msg *m, size_t used, int depth)
{
    if (depth > 16)
        return 0;
    while (*f) {
        struct spec sp;
        const char *pf = strchr(f, '%');
        size_t lit = pf ? (size_t)(pf - f) : strlen(f);
        if (strncmp(f, t, lit))
            return 0;
        f += lit, t += lit;
        if (!pf)
            break;
        const char *after = next_spec(f, &sp);
        if (!sp.kind) {
            if (f[1] != '%' || *t != '%')
                return 0;
            f = after, t++;
            continue;
        }
        int n0 = m->nargs;
        if (sp.kind == 'm')
            return 0;               /* a nested message is never read back from text */
        if (sp.kind == 's') {
            /* the shortest text after which the rest matches */
            for (size_t k = 0; k <= strlen(t); k++) {
                m->nargs = n0;
                size_t u = used;
                if (sp.star_prec)
                    keep_int(m, (long long)k);
                keep_text(m, t, k, &u);
                if (match(after, t + k, m, u, depth + 1))
                    return 1;
            }
            m->nargs = n0;
            return 0;
        }
        if (sp.conv == 'c') {
            if (!*t)
                return 0;
            keep_int(m, (unsigned char)*t);
            f = after, t++;
            continue;
        }
        const char *e = number_end(t, sp.conv == 'x' || sp.conv == 'X' ? 'x' : sp.kind);
        if (!e || m->nargs >= BL_MSG_ARGS)
            return 0;
        struct bl_msg_arg a = {.kind = sp.kind};
        if (sp.kind == 'i')
            a.v.i = strtoll(t, NULL, 10);
        else if (sp.kind == 'u')
            a.v.u = strtoull(t, NULL, sp.conv == 'x' || sp.conv == 'X' ? 16 : 10);
        else
            a.v.f = strtod(t, NULL);
        m->arg[m->nargs++] = a;
        f = after, t = e;
    }
    return *t == 0;
}

/* A format with no letter outside its conversions ("%s: %s") matches nearly any text: it is
 * never read back from one. */
static int has_words(const char *f)
{
    for (; *f; f++) {
        if (*f == '%') {
            while (f[1] && !strchr("diouxXeEfgGcsp%", f[1]))
                f++;
            if (f[1])
                f++;
        } else if ((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z')) {
            return 1;
        }
    }
    return 0;
}

int bl_msg_parse(const char *text, struct bl_msg *m)
{
    memset(m, 0, sizeof *m);
    if (!text || !text[0])
        return 0;
    for (int id = 1; id < BL_MSG_COUNT; id++) {
        const char *f = table[id].en;
        if (!has_words(f) || !strncmp(table[id].name, "PH_", 3) ||
            !strncmp(table[id].name, "KW_", 3))
            continue;                   /* a text handed on; phrases and key words stand alone */
        memset(m, 0, sizeof *m);
        if (match(f, text, m, 1, 0)) {
            m->id = id;
            return 1;
        }
    }
    memset(m, 0, sizeof *m);
    return 0;
}

const char *bl_phrase(const char *s, enum bl_lang lang)
{
    if (lang == BL_LANG_EN || !s || !s[0])
        return s;
    int word = 0; /* punctuation alone ("(", ", ") is the writer's text, e.g. a regex */
    for (const char *c = s; *c && !word; c++)
        word = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z');
    if (!word)
        return s;
    for (int i = 1; i < BL_MSG_COUNT; i++)  /* the key table's words are not phrases */
        if ((!strncmp(table[i].name, "PH_", 3) ||
             (!strchr(table[i].en, '%') && strncmp(table[i].name, "KW_", 3))) &&
            !strcmp(table[i].en, s))
            return table[i].zh;
    return s;
}

/* the integer argument i of m, 0 when it is missing or not an integer */
static int int_arg(const struct bl_msg *m, int *i)
{
    int v = *i < m->nargs && m->arg[*i].kind == 'i' ? (int)m->arg[*i].v.i : 0;
    (*i)++;
    return v;
}

/* one conversion of sp with m's argument *i into dst: the spec rewritten for the kept type */
static size_t render(const struct bl_msg *m, enum bl_lang lang, char *dst, size_t n, int depth);

static size_t render_one(const struct bl_msg *m, enum bl_lang lang, const struct spec *sp,
                         int *i, char *dst, size_t n, int depth)
{
    char f[32];
    size_t sl = (size_t)(sp->end - sp->body);
    if (sl >= sizeof f - 5)
        return 0;
    /* the spec without its position, length modifier and conversion, then ours */
    size_t head = sl - strlen(sp->len) - 1;
    f[0] = '%';
    memcpy(f + 1, sp->body, head);
    f[head + 1] = 0;
    int w = sp->star_width ? int_arg(m, i) : 0, pr = sp->star_prec ? int_arg(m, i) : 0;
    if (*i >= m->nargs)
        return 0;
    const struct bl_msg_arg *a = &m->arg[(*i)++];
    if (a->kind != sp->kind)
        return 0;
    if (sp->kind == 'm') {          /* the nested message, in the same language */
        struct bl_msg inner;
        if (a->v.s >= sizeof m->sbuf || !unpack(m->sbuf + a->v.s, sizeof m->sbuf - a->v.s, &inner))
            return 0;
        return render(&inner, lang, dst, n, depth);
    }
    size_t h = strlen(f);
    if (sp->kind == 'i' && sp->conv == 'c') {
        f[h] = 'c', f[h + 1] = 0;
    } else if (sp->kind == 'i' || sp->kind == 'u') {
        f[h] = 'l', f[h + 1] = 'l', f[h + 2] = sp->conv, f[h + 3] = 0;
    } else {
        f[h] = sp->conv, f[h + 1] = 0;
    }
    const char *s = sp->kind == 's' ? bl_phrase(m->sbuf + a->v.s, lang) : NULL;
    char nested[BL_MSG_SBUF * 2];
    struct bl_msg inner;
    if (s && lang != BL_LANG_EN && s == m->sbuf + a->v.s && depth < 2 && bl_msg_parse(s, &inner)) {
        render(&inner, lang, nested, sizeof nested, depth + 1);   /* a message in a message */
        s = nested;
    }
    int r;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (sp->star_width && sp->star_prec)
        r = sp->kind == 's' ? snprintf(dst, n, f, w, pr, s) : snprintf(dst, n, f, w, pr, a->v.f);
    else if (sp->star_width || sp->star_prec) {
        int st = sp->star_width ? w : pr;
        r = sp->kind == 's' ? snprintf(dst, n, f, st, s)
          : sp->kind == 'f' ? snprintf(dst, n, f, st, a->v.f)
          : sp->conv == 'c' ? snprintf(dst, n, f, st, (int)a->v.i)
          : sp->kind == 'i' ? snprintf(dst, n, f, st, a->v.i) : snprintf(dst, n, f, st, a->v.u);
    } else {
        r = sp->kind == 's' ? snprintf(dst, n, f, s)
          : sp->kind == 'f' ? snprintf(dst, n, f, a->v.f)
          : sp->conv == 'c' ? snprintf(dst, n, f, (int)a->v.i)
          : sp->kind == 'i' ? snprintf(dst, n, f, a->v.i) : snprintf(dst, n, f, a->v.u);
    }
#pragma GCC diagnostic pop
    if (r < 0)
        return 0;
    return (size_t)r < n ? (size_t)r : n - 1;
}

int bl_msg_inner(const struct bl_msg *m, int i, struct bl_msg *inner)
{
    if (i < 0 || i >= m->nargs || m->arg[i].kind != 'm' || m->arg[i].v.s >= sizeof m->sbuf) {
        memset(inner, 0, sizeof *inner);
        return 0;
    }
    return unpack(m->sbuf + m->arg[i].v.s, sizeof m->sbuf - m->arg[i].v.s, inner);
}

size_t bl_msg_nest(struct bl_msg *m, int i, size_t at, const struct bl_msg *inner)
{
    if (i < 0 || i >= BL_MSG_ARGS || at >= sizeof m->sbuf)
        return 0;
    size_t k = pack(inner, m->sbuf + at, sizeof m->sbuf - at);
    if (k) {
        m->arg[i].kind = 'm';
        m->arg[i].v.s = (unsigned)at;
    }
    return k;
}

void bl_msg_sanitize(struct bl_msg *m)
{
    m->sbuf[sizeof m->sbuf - 1] = 0;
    int ok = m->id > BL_MSG_NONE && m->id < BL_MSG_COUNT && m->nargs >= 0 &&
             m->nargs <= BL_MSG_ARGS;
    for (int i = 0; ok && i < m->nargs; i++) {
        const struct bl_msg_arg *a = &m->arg[i];
        if (a->kind == 'm')        /* whole where it stands; its ids are checked as rendered */
            ok = a->v.s < sizeof m->sbuf &&
                 packed_len(m->sbuf + a->v.s, sizeof m->sbuf - a->v.s, 1) != 0;
        else
            ok = a->kind != 's' || a->v.s < sizeof m->sbuf;
    }
    if (!ok)
        memset(m, 0, sizeof *m);
}

size_t bl_msg_render(const struct bl_msg *m, enum bl_lang lang, char *dst, size_t n)
{
    size_t o = render(m, lang, dst, n, 0);
    if (o + 1 == n) { /* cut where it did not fit: without a last character cut short */
        size_t i = o;
        while (i > 0 && ((unsigned char)dst[i - 1] & 0xC0) == 0x80)
            i--;
        if (i > 0 && (unsigned char)dst[i - 1] >= 0xC0) {
            unsigned char lead = (unsigned char)dst[i - 1];
            size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            if (o - (i - 1) < want)
                dst[o = i - 1] = 0;
        }
    }
    return o;
}

static size_t render(const struct bl_msg *m, enum bl_lang lang, char *dst, size_t n, int depth)
{
    if (!dst || !n)
        return 0;
    dst[0] = 0;
    if (!m || m->id <= BL_MSG_NONE || m->id >= BL_MSG_COUNT)
        return 0;
    const char *f = bl_msg_format(m->id, lang);
    size_t o = 0;
    int i = 0;
    struct spec sp;
    const char *p = f;
    for (const char *q; o + 1 < n && (q = next_spec(p, &sp)); p = q) {
        size_t lit = (size_t)(sp.start - p);
        if (lit > n - 1 - o)
            lit = n - 1 - o;
        memcpy(dst + o, p, lit);
        o += lit;
        if (o + 1 >= n)
            break;
        if (!sp.kind) { /* %% or a conversion the table does not use: its text */
            const char *t = sp.start[1] == '%' ? sp.start + 1 : sp.start;
            size_t k = (size_t)(sp.end - t);
            if (k > n - 1 - o)
                k = n - 1 - o;
            memcpy(dst + o, t, k);
            o += k;
            continue;
        }
        int at = sp.pos - 1;        /* %N$: the Nth argument kept (a row without '*') */
        o += render_one(m, lang, &sp, sp.pos ? &at : &i, dst + o, n - o, depth);
        if (o + 1 >= n)
            break;
    }
    if (o + 1 < n) {
        size_t rest = strlen(p);
        if (rest > n - 1 - o)
            rest = n - 1 - o;
        memcpy(dst + o, p, rest);
        o += rest;
    }
    dst[o] = 0;
    return o;
}

const char *bl_msg_or_text(const struct bl_msg *m, const char *en, enum bl_lang lang, char *buf,
                           size_t n)
{
    if (lang == BL_LANG_EN || !buf || !n || !m || m->id <= BL_MSG_NONE || m->id >= BL_MSG_COUNT)
        return en;
    bl_msg_render(m, lang, buf, n);
    return buf;
}

const char *bl_errno_text(int err, enum bl_lang lang)
{
    static const struct {
        int err, id;
    } rows[] = {
        {ENOENT, PH_ENOENT}, {EACCES, PH_EACCES}, {EISDIR, PH_EISDIR}, {ENOTDIR, PH_ENOTDIR},
        {EEXIST, PH_EEXIST}, {ENOSPC, PH_ENOSPC}, {EROFS, PH_EROFS}, {ELOOP, PH_ELOOP},
        {ENAMETOOLONG, PH_ENAMETOOLONG}, {EPERM, PH_EPERM}, {EMFILE, PH_EMFILE},
        {ENFILE, PH_ENFILE}, {EIO, PH_EIO}, {ENXIO, PH_ENXIO}, {ETXTBSY, PH_ETXTBSY},
        {EFBIG, PH_EFBIG}, {EBUSY, PH_EBUSY}, {EAGAIN, PH_EAGAIN}, {ENOMEM, PH_ENOMEM},
        {ENOEXEC, PH_ENOEXEC}, {ECONNREFUSED, PH_ECONNREFUSED}, {EADDRINUSE, PH_EADDRINUSE},
        {ETIMEDOUT, PH_ETIMEDOUT}, {EPIPE, PH_EPIPE}, {ENOTEMPTY, PH_ENOTEMPTY},
        {EBADF, PH_EBADF},
    };
    for (size_t i = 0; lang != BL_LANG_EN && i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].err == err)
            return bl_msg_format(rows[i].id, lang);
    return strerror(err);
}
