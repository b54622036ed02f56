/* demangle.c: which function of a cubin nvcc made is the kernel the user named: the
 * cubin's ".text.SYMBOL" sections, each SYMBOL's name read back from its Itanium mangling
 * (the qualified name and its template arguments: builtin types, classes, pointers, const,
 * integer literals; enough for kernels like ns::k<float4, 4>), compared with the name as
 * written. NVRTC says the symbol itself (nvrtcGetLoweredName); nvcc has no such call and the
 * toolkit's c++filt is not everywhere. Pure C. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

struct dm {
    const char *p, *end;
    char out[GPU_KERNEL_TEXT];
    size_t len;
    int bad;
};

static void dm_put(struct dm *d, const char *s, size_t n)
{
    if (d->len + n >= sizeof d->out) {
        d->bad = 1;
        return;
    }
    memcpy(d->out + d->len, s, n);
    d->len += n;
    d->out[d->len] = '\0';
}

static void dm_puts(struct dm *d, const char *s) { dm_put(d, s, strlen(s)); }

/* <number><identifier> */
static int dm_source_name(struct dm *d)
{
    if (d->p >= d->end || !isdigit((unsigned char)*d->p))
        return -1;
    long n = 0;
    while (d->p < d->end && isdigit((unsigned char)*d->p) && n < 100000)
        n = n * 10 + (*d->p++ - '0');
    if (n <= 0 || n > d->end - d->p)
        return -1;
    dm_put(d, d->p, (size_t)n);
    d->p += n;
    return 0;
}

static int dm_type(struct dm *d);

static const struct {
    char code;
    const char *name;
} builtins[] = {
    {'v', "void"}, {'b', "bool"}, {'c', "char"}, {'a', "signed char"}, {'h', "unsigned char"},
    {'s', "short"}, {'t', "unsigned short"}, {'i', "int"}, {'j', "unsigned int"}, {'l', "long"},
    {'m', "unsigned long"}, {'x', "long long"}, {'y', "unsigned long long"}, {'f', "float"},
    {'d', "double"}, {'e', "long double"}, {'w', "wchar_t"}, {'n', "__int128"},
    {'o', "unsigned __int128"},
};

/* I <template-arg>+ E */
static int dm_template_args(struct dm *d)
{
    d->p++; /* I */
    dm_puts(d, "<");
    for (int first = 1; d->p < d->end && *d->p != 'E'; first = 0) {
        if (!first)
            dm_puts(d, ", ");
        if (*d->p == 'L') { /* a literal: L <type> [n] <number> E */
            d->p++;
            int is_bool = d->p < d->end && *d->p == 'b';
            struct dm t = {d->p, d->end, "", 0, 0};
            if (dm_type(&t))
                return -1;
            d->p = t.p;
            if (d->p < d->end && *d->p == 'n') {
                dm_puts(d, "-");
                d->p++;
            }
            const char *num = d->p;
            while (d->p < d->end && isdigit((unsigned char)*d->p))
                d->p++;
            if (d->p >= d->end || *d->p != 'E' || num == d->p)
                return -1;
            if (is_bool)
                dm_puts(d, *num == '1' ? "true" : "false");
            else
                dm_put(d, num, (size_t)(d->p - num));
            d->p++;
        } else if (dm_type(d)) {
            return -1;
        }
    }
    if (d->p >= d->end)
        return -1;
    d->p++; /* E */
    dm_puts(d, ">");
    return 0;
}

/* N [K|V|r]* <component>+ E, or <source-name> [I...E]. Substitutions (S_, T_) are not read. */
static int dm_name(struct dm *d)
{
    if (d->p < d->end && *d->p == 'N') {
        d->p++;
        while (d->p < d->end && (*d->p == 'K' || *d->p == 'V' || *d->p == 'r'))
            d->p++;
        for (int first = 1; d->p < d->end && *d->p != 'E';) {
            if (*d->p == 'I') {
                if (dm_template_args(d))
                    return -1;
                continue;
            }
            if (!first)
                dm_puts(d, "::");
            if (d->p + 1 < d->end && d->p[0] == 'S' && d->p[1] == 't') {
                dm_puts(d, "std");
                d->p += 2;
            } else if (dm_source_name(d)) {
                return -1;
            }
            first = 0;
        }
        if (d->p >= d->end)
            return -1;
        d->p++;
        return 0;
    }
    if (dm_source_name(d))
        return -1;
    if (d->p < d->end && *d->p == 'I')
        return dm_template_args(d);
    return 0;
}

static int dm_type(struct dm *d)
{
    if (d->p >= d->end)
        return -1;
    char c = *d->p;
    if (c == 'P' || c == 'K') {
        d->p++;
        if (c == 'K')
            dm_puts(d, "const ");
        if (dm_type(d))
            return -1;
        if (c == 'P')
            dm_puts(d, "*");
        return 0;
    }
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (builtins[i].code == c) {
            d->p++;
            dm_puts(d, builtins[i].name);
            return 0;
        }
    if (isdigit((unsigned char)c) || c == 'N')
        return dm_name(d);
    return -1;
}

/* The name of a mangled symbol, with its template arguments, into out: "ns::k<float4, 4>".
 * An unmangled symbol (extern "C") is its own name. -1 when it cannot be read. */
static int demangle(const char *sym, char *out, size_t n)
{
    if (strncmp(sym, "_Z", 2)) {
        bl_fmt(out, n, "%s", sym);
        return 0;
    }
    struct dm d = {sym + 2, sym + strlen(sym), "", 0, 0};
    if (dm_name(&d) || d.bad)
        return -1;
    bl_fmt(out, n, "%s", d.out);
    return 0;
}

int kdemangle(const char *sym, char *out, size_t n)
{
    return demangle(sym, out, n);
}

/* A name for comparing: no blanks, integer suffixes (4u, 8ul) dropped, "unsigned" as in
 * "unsigned int" written as the demangler writes it. */
static void normal(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; s[i] && k + 1 < n; i++) {
        if (s[i] == ' ')
            continue;
        if ((s[i] == 'u' || s[i] == 'U' || s[i] == 'l' || s[i] == 'L') && i > 0 &&
            isdigit((unsigned char)s[i - 1]) && !isalnum((unsigned char)s[i + 1]))
            continue;
        if ((s[i] == 'u' || s[i] == 'U' || s[i] == 'l' || s[i] == 'L') && i > 1 &&
            (s[i - 1] == 'u' || s[i - 1] == 'U' || s[i - 1] == 'l' || s[i - 1] == 'L') &&
            isdigit((unsigned char)s[i - 2]))
            continue;
        out[k++] = s[i];
    }
    out[k] = '\0';
}

/* The base of a demangled or written name: before '<', after the last "::". */
static void base_of(const char *s, char *out, size_t n)
{
    const char *lt = strchr(s, '<');
    size_t len = lt ? (size_t)(lt - s) : strlen(s);
    const char *start = s;
    for (const char *c = s; c + 1 < s + len; c++)
        if (c[0] == ':' && c[1] == ':')
            start = c + 2;
    bl_fmt(out, n, "%.*s", (int)(s + len - start), start);
}

/* ---- names in the written template arguments: enum constants, #define and const ints ---- */

static int ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The word at p (of length n) stands alone in src at q? */
static int word_at(const char *src, const char *end, const char *q, const char *w, size_t n)
{
    return q + n <= end && !memcmp(q, w, n) && (q == src || !ident_char(q[-1])) &&
           (q + n == end || !ident_char(q[n]));
}

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p;
}

/* The integer value of `name` (n bytes) in src: an enumerator (counting from the previous
 * one), "#define NAME INT", "NAME = INT" after const/constexpr. 0 with *v, or -1. */
static int lookup_const(const char *src, size_t len, const char *name, size_t n, long *v)
{
    const char *end = src + len;
    for (const char *q = src; q + 4 < end; q++) {
        if (word_at(src, end, q, "enum", 4)) {
            const char *b = memchr(q, '{', (size_t)(end - q));
            const char *semi = memchr(q, ';', (size_t)(end - q));
            if (!b || (semi && semi < b))
                continue;
            long next = 0;
            for (const char *e = b + 1; e < end && *e != '}';) {
                e = skip_blank(e, end);
                const char *id = e;
                while (e < end && ident_char(*e))
                    e++;
                if (e == id)
                    break;
                size_t il = (size_t)(e - id);
                e = skip_blank(e, end);
                long val = next;
                if (e < end && *e == '=') {
                    char *ne;
                    val = strtol(skip_blank(e + 1, end), &ne, 0);
                    e = ne;
                }
                if (il == n && !memcmp(id, name, n)) {
                    *v = val;
                    return 0;
                }
                next = val + 1;
                while (e < end && *e != ',' && *e != '}')
                    e++;
                if (e < end && *e == ',')
                    e++;
            }
        } else if (word_at(src, end, q, name, n)) {
            const char *a = skip_blank(q + n, end);
            const char *back = q;
            while (back > src && (back[-1] == ' ' || back[-1] == '\t'))
                back--;
            int define = back - src >= 6 && !memcmp(back - 6, "define", 6);
            if (!define && (a >= end || *a != '=' || (a + 1 < end && a[1] == '=')))
                continue;
            if (!define)
                a = skip_blank(a + 1, end);
            char *ne;
            long val = strtol(a, &ne, 0);
            if (ne != a) {
                *v = val;
                return 0;
            }
        }
    }
    return -1;
}

/* want with the names inside its template arguments replaced by their values from src. */
static void resolve_names(const char *want, const char *src, size_t len, char *out, size_t n)
{
    size_t k = 0;
    int depth = 0;
    for (const char *p = want; *p && k + 24 < n;) {
        if (*p == '<')
            depth++;
        else if (*p == '>')
            depth--;
        if (depth > 0 && (isalpha((unsigned char)*p) || *p == '_') &&
            (p == want || !ident_char(p[-1]))) {
            const char *e = p;
            while (ident_char(*e))
                e++;
            long v;
            if (src && lookup_const(src, len, p, (size_t)(e - p), &v) == 0) {
                k += (size_t)snprintf(out + k, n - k, "%ld", v);
                p = e;
                continue;
            }
        }
        out[k++] = *p++;
    }
    out[k] = '\0';
}

/* What knvcc_symbol looks for among the ".text." sections, and what it found. */
struct sym_want {
    char want[GPU_KERNEL_TEXT], want_base[GPU_KERNEL_TEXT];
    char *sym;
    size_t symsz;
    int exact, by_base;
    char base_sym[GPU_KERNEL_TEXT];
};

static int sym_section(const char *name, const Elf64_Shdr *sh, void *arg)
{
    struct sym_want *w = arg;
    (void)sh;
    if (strncmp(name, ".text.", 6))
        return 0;
    const char *s = name + 6;
    char dem[GPU_KERNEL_TEXT], norm[GPU_KERNEL_TEXT], base[GPU_KERNEL_TEXT];
    if (demangle(s, dem, sizeof dem))
        return 0;
    normal(dem, norm, sizeof norm);
    base_of(norm, base, sizeof base);
    size_t wl = strlen(w->want), nl = strlen(norm);
    /* the written name may leave out namespaces: compare from the end at a "::" */
    if (!strcmp(norm, w->want) ||
        (nl > wl && !strcmp(norm + nl - wl, w->want) && norm[nl - wl - 1] == ':')) {
        w->exact++;
        bl_fmt(w->sym, w->symsz, "%s", s);
    } else if (!strcmp(base, w->want_base)) {
        w->by_base++;
        bl_fmt(w->base_sym, sizeof w->base_sym, "%s", s);
    }
    return 0;
}

int knvcc_symbol(const void *cubin, size_t n, const char *name_expr, const char *src,
                 size_t srclen, char *sym, size_t symsz)
{
    struct sym_want w = {.sym = sym, .symsz = symsz};
    char resolved[GPU_KERNEL_TEXT];
    resolve_names(name_expr, src, srclen, resolved, sizeof resolved);
    normal(resolved, w.want, sizeof w.want);
    base_of(w.want, w.want_base, sizeof w.want_base);
    if (sass_sections(cubin, n, sym_section, &w))
        return -1;
    if (w.exact == 1)
        return 0;
    if (w.exact == 0 && w.by_base == 1) {
        bl_fmt(sym, symsz, "%s", w.base_sym);
        return 0;
    }
    if (symsz)
        sym[0] = '\0';
    return -1;
}
