/* kview_prompt.c: the kernel view's file prompt (o, or z the first time): a path, then launch
 * options as on the command line (--arg n=1024 ...; quotes keep a value with blanks); the
 * shipped examples listed with what each shows (Up/Down picks one); Tab completes the path
 * from its directory, Enter checks the options and that the file can be read before the view
 * opens it, Esc cancels. Edits like the playground's line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../store/files.h"
#include "kview.h"
#include "../sys/sys.h"

static int cmp_examples(const void *x, const void *y)
{
    return strcmp(((const struct kv_example *)x)->name, ((const struct kv_example *)y)->name);
}

/* the first sentence of the comment that starts "NAME: " (the examples' header), joined over
 * its lines */
static void example_what(const char *src, const char *name, char *what, size_t size)
{
    char tag[80];
    bl_fmt(tag, sizeof tag, "%s: ", name);
    const char *p = strstr(src, tag);
    size_t o = 0;
    what[0] = 0;
    if (!p)
        return;
    for (p += strlen(tag); *p && o + 1 < size; p++) {
        if ((p[0] == '.' && (p[1] == ' ' || p[1] == '\n')) || (p[0] == '*' && p[1] == '/'))
            break;
        if (*p == '\n') {                /* the next line of the comment: one space */
            while (p[1] == ' ' || p[1] == '*')
                p++;
            what[o++] = ' ';
            continue;
        }
        what[o++] = *p;
    }
    what[o] = 0;
}

/* the examples of dir, sorted, each with what its comment says */
static void list_examples(struct kview *k, const char *dir)
{
    k->nex = 0;
    k->exsel = -1;
    bl_fmt(k->exdir, sizeof k->exdir, "%s", dir);
    struct sys_dir *d = sys_dir_open(dir);
    if (!d)
        return;
    const char *name;
    while (k->nex < KV_EXAMPLES && (name = sys_dir_next(d))) {
        size_t n = strlen(name);
        if (n < 4 || n >= sizeof k->ex[0].name || strcmp(name + n - 3, ".cu"))
            continue;
        bl_fmt(k->ex[k->nex++].name, sizeof k->ex[0].name, "%s", name);
    }
    sys_dir_close(d);
    qsort(k->ex, (size_t)k->nex, sizeof k->ex[0], cmp_examples);
    for (int i = 0; i < k->nex; i++) {
        char path[2 * UI_PATH_MAX];
        size_t len;
        bl_fmt(path, sizeof path, "%s/%s", dir, k->ex[i].name);
        char *src = files_read(path, 1 << 16, &len, NULL);
        k->ex[i].what[0] = 0;
        if (src)
            example_what(src, k->ex[i].name, k->ex[i].what, sizeof k->ex[i].what);
        free(src);
    }
}

void kv_prompt_start(struct kview *k)
{
    struct stat sb;
    const char *dir = NULL;
    if (stat("assets/kernels", &sb) == 0 && S_ISDIR(sb.st_mode))
        dir = "assets/kernels";
    else if (stat(BANKLAB_SHARE_DIR "/assets/kernels", &sb) == 0 && S_ISDIR(sb.st_mode))
        dir = BANKLAB_SHARE_DIR "/assets/kernels";
    k->prompting = 1;
    k->input[0] = 0;
    k->nex = 0;
    k->exsel = -1;
    if (dir)
        list_examples(k, dir);
    if (k->file.path[0] && bl_utf8_control(k->file.path, "", NULL) == (size_t)-1) {  /* typeable */
        size_t o = bl_fmt(k->input, sizeof k->input, "%s", k->file.path);
        for (int i = 0; i < k->file.nopt; i++)
            o += bl_fmt(k->input + o, sizeof k->input - o, strchr(k->file.opt[i].val, ' ') ?
                        " %s '%s'" : " %s %s", k->file.opt[i].opt, k->file.opt[i].val);
    } else if (dir) {
        bl_fmt(k->input, sizeof k->input, "%s/", dir);
    }
    k->ilen = k->icur = (int)strlen(k->input);
}

/* Up/Down: the next or previous example into the line */
static void pick_example(struct kview *k, int dir)
{
    if (k->nex == 0)
        return;
    k->exsel = k->exsel < 0 ? (dir > 0 ? 0 : k->nex - 1)
                            : ui_max(0, ui_min(k->nex - 1, k->exsel + dir));
    bl_fmt(k->input, sizeof k->input, "%s/%s", k->exdir, k->ex[k->exsel].name);
    k->ilen = k->icur = (int)strlen(k->input);
}

/* the words of s (blanks between them; '...' and "..." quote), NUL-terminated in place */
static int split_words(char *s, char **w, int max)
{
    int n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || n == max)
            break;
        char q = *s == '\'' || *s == '"' ? *s : 0;
        w[n++] = q ? ++s : s;
        while (*s && (q ? *s != q : *s != ' ' && *s != '\t'))
            s++;
        if (*s)
            *s++ = 0;
    }
    return n;
}

/* Enter: the path and options into k->ask when the options are good and the file can be
 * read; 1 then, else 0 with a message */
static int prompt_submit(struct app *a, struct kview *k)
{
    char line[UI_PATH_MAX];
    char *w[2 * KV_OPTS + 2];
    const char *opt[KV_OPTS], *val[KV_OPTS];
    bl_fmt(line, sizeof line, "%s", k->input);
    int nw = split_words(line, w, 2 * KV_OPTS + 2), nopt = 0;
    if (nw == 0)
        return 0;
    struct gpu_kernel_request scratch;
    gpu_kernel_request_init(&scratch);
    char err[GPU_KERNEL_TEXT];
    int at = 0, rc = gpu_kernel_words(&scratch, nw - 1, w + 1, GPU_KOPT_ALL, &at, err, sizeof err);
    if (rc == GPU_KW_NO_VALUE) {
        app_msg(a, 1, ui_str(a, UIS_KV_NEEDS_VALUE), w[1 + at]);
        return 0;
    }
    if (rc == GPU_KW_UNKNOWN) {
        char list[GPU_KERNEL_TEXT];
        gpu_kernel_opt_list(list, sizeof list, GPU_KOPT_PICK | GPU_KOPT_SHAPE | GPU_KOPT_LIMIT,
                            " ");
        app_msg(a, 1, ui_str(a, UIS_KV_LAUNCH_OPTS), list);
        return 0;
    }
    if (rc) {
        app_msg(a, 1, "%s", err);
        return 0;
    }
    /* the words as option and value, as gpu_kernel_words read them (--grid=4 or --grid 4) */
    for (int i = 1; i < nw && nopt < KV_OPTS; i++) {
        char *eq = strncmp(w[i], "--", 2) ? NULL : strchr(w[i], '=');
        if (eq)
            *eq = 0;
        opt[nopt] = w[i];
        val[nopt++] = eq ? eq + 1 : w[++i];
    }
    struct bl_err why = {0};
    size_t len;
    char *probe = files_read(w[0], GPU_KERNEL_MAX_SOURCE, &len, &why);
    if (!probe) {
        app_msg(a, 1, "%s: %s", w[0], ui_err(a, &why, (char[BL_ERR_TEXT]){0}, BL_ERR_TEXT));
        return 0;
    }
    free(probe);
    k->prompting = 0;
    bl_fmt(k->ask.path, sizeof k->ask.path, "%s", w[0]);
    for (int i = 0; i < nopt; i++) {
        bl_fmt(k->ask.opt[i].opt, sizeof k->ask.opt[i].opt, "%s", opt[i]);
        bl_fmt(k->ask.opt[i].val, sizeof k->ask.opt[i].val, "%s", val[i]);
    }
    k->ask.nopt = nopt;
    return 1;
}

static int cmp_names(const void *x, const void *y)
{
    return strcmp((const char *)x, (const char *)y);
}

/* Tab: the path (the first word) as far as the names in its directory agree */
static void prompt_complete(struct app *a, struct kview *k)
{
    int end = 0;
    while (end < k->ilen && k->input[end] != ' ')
        end++;
    char word[UI_PATH_MAX], dir[UI_PATH_MAX];
    bl_fmt(word, sizeof word, "%.*s", end, k->input);
    const char *slash = strrchr(word, '/'), *base = slash ? slash + 1 : word;
    bl_fmt(dir, sizeof dir, "%.*s", slash ? (int)(slash - word + 1) : 0, word);
    struct sys_dir *d = sys_dir_open(dir[0] ? dir : ".");
    if (!d) {
        app_msg(a, 1, "%s", ui_str(a, UIS_KV_NO_MATCH));
        return;
    }
    char names[64][64];
    int n = 0, common = -1;
    size_t blen = strlen(base);
    char first[256] = "";
    const char *ename;
    while ((ename = sys_dir_next(d))) {
        if (strncmp(ename, base, blen) || (ename[0] == '.' && base[0] != '.'))
            continue;
        if (!first[0]) {
            bl_fmt(first, sizeof first, "%s", ename);
            common = (int)strlen(first);
        } else {
            int c = 0;
            while (c < common && first[c] == ename[c])
                c++;
            common = c;
        }
        if (n < 64)
            bl_fmt(names[n], sizeof names[n], "%s", ename);
        n++;
    }
    sys_dir_close(d);
    if (n == 0) {
        app_msg(a, 1, "%s", ui_str(a, UIS_KV_NO_MATCH));
        return;
    }
    char done[UI_PATH_MAX];
    struct stat sb;
    size_t o = bl_fmt(done, sizeof done, "%s%.*s", dir, common, first);
    if (n == 1 && stat(done, &sb) == 0 && S_ISDIR(sb.st_mode))
        bl_fmt(done + o, sizeof done - o, "/");
    char rest[UI_PATH_MAX];
    bl_fmt(rest, sizeof rest, "%s", k->input + end);
    bl_fmt(k->input, sizeof k->input, "%s%s", done, rest);
    k->ilen = (int)strlen(k->input);
    k->icur = ui_min((int)strlen(done), k->ilen);
    if (n > 1) {                                 /* the choices, as many as the line takes */
        qsort(names, (size_t)ui_min(n, 64), sizeof names[0], cmp_names);
        char list[UI_MSG_MAX];
        size_t lo = 0;
        list[0] = 0;
        for (int i = 0; i < ui_min(n, 64) && lo + 2 < sizeof list; i++)
            lo += bl_fmt(list + lo, sizeof list - lo, "%s%s", i ? "  " : "", names[i]);
        char clean[UI_MSG_MAX];
        app_msg(a, 0, "%s", bl_clean(clean, sizeof clean, list));
    }
}

int kv_prompt_key(struct app *a, struct kview *k, const struct ui_key *key)
{
    if (ui_line_key(k->input, (int)sizeof k->input, &k->ilen, &k->icur, key) != -1)
        return 0;
    switch (key->action) {
    case ACT_COMPLETE: prompt_complete(a, k); break;
    case ACT_UP: pick_example(k, -1); break;
    case ACT_DOWN: pick_example(k, 1); break;
    case ACT_GO: return prompt_submit(a, k);
    case ACT_HELP:
        return -1;                               /* F1: the view's help box */
    case ACT_LEAVE:
        k->prompting = 0;
        if (!k->file.path[0])
            ui_pop(a);                           /* nothing to show: back where z was pressed */
        break;
    default:
        break;                                   /* other keys do nothing while typing */
    }
    return 0;
}
