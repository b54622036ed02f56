/* lab_text.c: the lab's text for a line terminal (lab.h). */
#include "lab.h"

#include <ctype.h>
#include <stdarg.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../base/lexicon.h"
#include "../base/msg.h"
#include "../base/wrap.h"
#include "../lesson/scene.h"
#include "../model/pattern.h"
#include "../sys/sys.h"

void lab_locale(void)
{
    setlocale(LC_CTYPE, "");
    const char *cs = nl_langinfo(CODESET);
    if (!cs || (strcmp(cs, "UTF-8") && strcmp(cs, "utf8")))
        if (!setlocale(LC_CTYPE, "C.UTF-8"))
            setlocale(LC_CTYPE, "en_US.UTF-8");
}

/* the columns to wrap at: $COLUMNS when it is 20..500, else 80 */
static int lab_width(void)
{
    const char *c = sys_env("COLUMNS");
    int w = c ? atoi(c) : 0;
    return w >= 20 && w <= 500 ? w : 80;
}

/* the parameter of s whose keys are a and b (either order), or NULL */
static const struct lesson_param *key_param(const struct lesson_scene *s, int a, int b)
{
    for (int i = 0; i < s->nparams; i++) {
        const struct lesson_param *p = &s->params[i];
        if ((p->key_dec == a && p->key_inc == b) || (p->key_dec == b && p->key_inc == a))
            return p;
    }
    return NULL;
}

/* "X / Y" or "X/Y" at t (two ASCII letters): their length, 0 when not */
static size_t key_pair(const char *t, int *a, int *b)
{
    if (!isalpha((unsigned char)t[0]))
        return 0;
    size_t i = 1;
    if (t[i] == ' ' && t[i + 1] == '/' && t[i + 2] == ' ')
        i += 3;
    else if (t[i] == '/')
        i += 1;
    else
        return 0;
    if (!isalpha((unsigned char)t[i]) || isalnum((unsigned char)t[i + 1]))
        return 0;
    *a = t[0];
    *b = t[i];
    return i + 1;
}

/* a single key named at t ("w" followed by no letter or digit) */
static int one_key(const char *t)
{
    return isalpha((unsigned char)t[0]) && !isalnum((unsigned char)t[1]) && t[1] != '_' &&
           t[1] != '[' && t[1] != '(';
}

/* the end of the sentence starting at s[i]: after . ? ! followed by a space or the end
 * (English) or after a Chinese full stop, question or exclamation mark (the lexicon's
 * SENTENCE_END), or at a newline */
static size_t sentence_end(const char *s, size_t i)
{
    for (; s[i]; i++) {
        if (s[i] == '\n')
            return i;
        if ((s[i] == '.' || s[i] == '?' || s[i] == '!') && (s[i + 1] == ' ' || !s[i + 1] ||
                                                             s[i + 1] == '\n'))
            return i + 1 + (s[i + 1] == ' ');
        size_t n = bl_lex_prefix(BL_LEX_SENTENCE_END, s + i);
        if (n)
            return i + n;
    }
    return i;
}

/* one sentence s[a..b) rewritten into out at *o; 0 when it must be left out */
static int rewrite(const struct lesson_scene *s, enum lesson_lang lang, const char *t,
                   size_t a, size_t b, char *out, size_t n, size_t *o)
{
    enum bl_lang bl = lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN;
    const char *lead = bl_msg_format(LAB_KEY_LEAD, bl);   /* the lessons' "with p / P" */
    size_t ll = strlen(lead);
    char buf[2048];
    size_t k = 0;
    for (size_t i = a; i < b && k + 64 < sizeof buf;) {
        int x, y;
        size_t m;
        if (!strncmp(t + i, lead, ll) && (m = key_pair(t + i + ll, &x, &y))) {
            const struct lesson_param *p = key_param(s, x, y);
            if (!p)
                return 0;
            k += (size_t)snprintf(buf + k, sizeof buf - k, bl_msg_format(LAB_AT_PROMPT, bl),
                                  p->name);
            i += ll + m;
            if (lang == LANG_ZH && t[i] == ' ')
                i++;                    /* Chinese: no blank after the prompt */
            continue;
        }
        if (!strncmp(t + i, lead, ll) && one_key(t + i + ll))
            return 0;                   /* a key of the tutorial's screen only */
        buf[k++] = t[i++];
    }
    buf[k] = 0;
    *o += (size_t)snprintf(out + *o, n - *o, "%s", buf);
    if (*o >= n)
        *o = n - 1;
    return 1;
}

void lab_prompt_text(const struct lesson_scene *s, enum lesson_lang lang, const char *text,
                     char *out, size_t n)
{
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; text[i] && o + 1 < n;) {
        if (text[i] == '\n') {
            out[o++] = '\n';
            out[o] = 0;
            i++;
            continue;
        }
        size_t e = sentence_end(text, i);
        if (e == i)
            e = i + 1;
        if (!rewrite(s, lang, text, i, e, out, n, &o)) {
            /* left out: a space the sentence ended with is not doubled */
            while (o > 0 && out[o - 1] == ' ' && (text[e] == '\n' || !text[e]))
                out[--o] = 0;
        }
        i = e;
    }
}

int lab_access_count(const struct lesson_scene *s)
{
    struct scene_run r = {0};
    struct scene_in in = {.scene = s, .access = -1, .warp = -1};
    int k = scene_run(&r, &in, NULL, NULL, NULL) ? 1 : r.naccess;
    scene_run_free(&r);
    return k > 0 ? k : 1;
}

/* the lab's output waiting for the end of its line */
static char pending[16384];
static size_t npending;

void lab_flush(void)
{
    if (npending) {
        fwrite(pending, 1, npending, stdout);
        npending = 0;
    }
    fflush(stdout);
}

void lab_out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(pending + npending, sizeof pending - npending, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    npending += (size_t)k < sizeof pending - npending ? (size_t)k : sizeof pending - npending - 1;
    char *nl;
    while ((nl = memchr(pending, '\n', npending))) {
        size_t line = (size_t)(nl - pending);
        if (line == 0) {
            fputc('\n', stdout);
        } else {
            char one[sizeof pending];
            memcpy(one, pending, line);
            one[line] = 0;
            int lead = 0;
            while (one[lead] == ' ')
                lead++;
            /* banklab's own line: wrapped, later lines as indented as the first */
            int width = lab_width();
            size_t pos = (size_t)lead, len = line;
            int code = 0;   /* inside a lesson's `code` span: it keeps its wrapping rules */
            while (pos < len) {
                size_t next;
                int cut, in = lead;
                size_t n = bl_wrap(one + pos, len - pos, width - in,
                                   (code ? BL_WRAP_IN_CODE : BL_WRAP_TICKS) | BL_WRAP_SHOWN,
                                   &next, &cut);
                for (size_t t = pos; t < pos + next && t < len; t++)
                    code ^= one[t] == '`';
                fprintf(stdout, "%*s%.*s\n", in, "", (int)n, one + pos);
                pos += next ? next : 1;
                while (pos < len && one[pos] == ' ')
                    pos++;
            }
        }
        memmove(pending, nl + 1, npending - line - 1);
        npending -= line + 1;
    }
}
