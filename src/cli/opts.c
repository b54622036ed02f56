/* opts.c: a command's options from its one table (struct cli_opt, cli.h): getopt_long's
 * array and letters, the parsing (no abbreviations, banklab's own messages) and the option
 * list of --help are all made here from the table; the launch options' rows come from the
 * kernel room's one table (gpu_kernel_opts). The only file of banklab with a struct option
 * (tests/sh/house.sh). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../kernel/kernel.h"

#define MAX_ROWS 96          /* rows of one command, the launch rows expanded */
#define ROW_KEY 0x1000       /* getopt_long's val of row i: ROW_KEY + i */

/* The rows of c's table that are options, the launch rows taken from gpu_kernel_opts; the
 * count (at most MAX_ROWS). */
static int expand(const struct cli_cmd *c, struct cli_opt *rows)
{
    int n = 0;
    for (const struct cli_opt *o = c->opts; !CLI_OPT_END(o); o++) {
        if (o->how == CLI_LAUNCH_ROWS) {
            for (const struct gpu_kernel_opt *k = gpu_kernel_opts; k->name && n < MAX_ROWS; k++)
                if (k->cls & o->key) {
                    int is_long = k->name[1] == '-';
                    rows[n++] = (struct cli_opt){is_long ? k->name + 2 : NULL,
                                                 is_long ? 0 : k->name[1], k->arg, k->help,
                                                 CLI_CALL, CLI_LAUNCH, 0, 0, 0};
                }
        } else if (o->how != CLI_TEXT && n < MAX_ROWS) {
            rows[n++] = *o;
        }
    }
    return n;
}

/* getopt_long's letters and array for rows: "-" or "+" (c->in_order), then "c:" for the
 * arguments that are not options (CLI_ARG), then each letter ("I:" with a value). */
static void getopt_tables(const struct cli_cmd *c, const struct cli_opt *rows, int n,
                          char *letters, size_t size, struct option *lo)
{
    size_t at = (size_t)snprintf(letters, size, "%c:", c->in_order ? '+' : '-');
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].letter && at + 3 < size)
            at += (size_t)snprintf(letters + at, size - at, "%c%s", rows[i].letter,
                                   rows[i].arg ? ":" : "");
        if (rows[i].name)
            lo[k++] = (struct option){rows[i].name, rows[i].arg ? required_argument : no_argument,
                                      NULL, ROW_KEY + i};
    }
    lo[k] = (struct option){0, 0, 0, 0};
}

/* The row spelled exactly as s ("--name" or "--name=value"), or -1: getopt_long takes
 * abbreviations, banklab does not. */
static int exact(const struct cli_opt *rows, int n, const char *s)
{
    if (strncmp(s, "--", 2))
        return -1;
    size_t len = strcspn(s + 2, "=");
    for (int i = 0; i < n; i++)
        if (rows[i].name && strlen(rows[i].name) == len && !strncmp(rows[i].name, s + 2, len))
            return i;
    return -1;
}

static int by_letter(const struct cli_opt *rows, int n, int letter)
{
    for (int i = 0; i < n; i++)
        if (rows[i].letter == letter)
            return i;
    return -1;
}

/* The long option whose argument is s, when s is one of the options that failed (optopt its
 * val; 0: getopt_long knew no such option), else NULL: a short option failed. */
static const char *refused_long(const struct cli_opt *rows, int n, const char *s)
{
    int i = exact(rows, n, s);
    return !strncmp(s, "--", 2) && (!optopt || (i >= 0 && ROW_KEY + i == optopt)) ? s : NULL;
}

/* One option of row r (name as spelled, val NULL when missing): where it goes. 0, -1 after
 * --help, or EXIT_USAGE after a message. */
static int deliver(const struct cli_cmd *c, const struct cli_opt *r, const char *name,
                   const char *val, void *ctx)
{
    if (r->how == CLI_SET) {
        *(int *)((char *)ctx + r->off) = 1;
        return 0;
    }
    if (r->how == CLI_STR) {
        if (r->need && (!val || !*val))
            return cli_usage_error(c, r->need);
        *(const char **)((char *)ctx + r->off) = val;
        return 0;
    }
    if (r->key == CLI_LANG) {
        if (!val || (strcmp(val, "zh") && strcmp(val, "en")))
            return cli_usage_error(c, CLI_E_LANG, CLI_CLEAN(val ? val : ""));
        return 0;
    }
    if (r->key == 'h') {
        c->help(stdout);
        return -1;
    }
    return c->opt(ctx, r->key, name, val);
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, void *ctx, int *rest)
{
    static struct cli_opt rows[MAX_ROWS];
    static struct option lo[MAX_ROWS + 1];
    char letters[2 * MAX_ROWS + 4], name[64];
    int n = expand(c, rows);
    getopt_tables(c, rows, n, letters, sizeof letters, lo);
    opterr = 0;
    optind = 0;  /* glibc: start afresh */
    int k, idx, rc;
    while (idx = -1, (k = getopt_long(argc, argv, letters, lo, &idx)) != -1) {
        const char *val = optarg, *elem = NULL;
        if (k == CLI_ARG) {
            if ((rc = c->opt(ctx, CLI_ARG, NULL, val)))
                return rc;
            continue;
        }
        int row;
        if (idx >= 0)  /* a long option's argument: before its value when that stood apart */
            elem = argv[optind - 1 - (val && val == argv[optind - 1])];
        else if (k == '?' || k == ':')
            elem = refused_long(rows, n, argv[optind - 1]);
        if (elem) {
            row = exact(rows, n, elem);
            if (row < 0 || k == '?')
                return cli_usage_error(c, c->unknown, CLI_CLEAN(elem));
            snprintf(name, sizeof name, "--%s", rows[row].name);
        } else {
            if (k == '?') {
                snprintf(name, sizeof name, "-%c", optopt);
                return cli_usage_error(c, c->unknown, CLI_CLEAN(name));
            }
            k = k == ':' ? optopt : k;
            row = by_letter(rows, n, k);
            snprintf(name, sizeof name, "-%c", k);
        }
        if (row < 0)
            return cli_usage_error(c, c->unknown, CLI_CLEAN(name));
        if ((rc = deliver(c, &rows[row], name, val, ctx)))
            return rc;
    }
    if (rest) {
        *rest = optind;
        return 0;
    }
    for (int i = optind; i < argc; i++)
        if ((rc = c->opt(ctx, CLI_REST, NULL, argv[i])))
            return rc;
    return 0;
}

int cli_count_opt(const struct cli_cmd *c, const char *name, const char *val, long *out)
{
    char *end;
    long n = val ? strtol(val, &end, 10) : -1;
    if (!val || !*val || *end || n < 0 || n > 1000000000L)
        return cli_usage_error(c, CLI_E_TAKES_COUNT, name);
    *out = n;
    return 0;
}

/* ---- --help's option list ---- */

/* One option's lines: "  LEFT", blanks to column c->col (at least c->gap), then its
 * description (help id, printf'd with num), its further lines from column c->col. */
static void help_row(FILE *f, const struct cli_cmd *c, const char *left, int help, int num)
{
    char text[4096];
    snprintf(text, sizeof text, cli_msg(help), num);
    int w = 2 + (int)strlen(left);
    int pad = w + c->gap <= c->col ? c->col - w : c->gap;
    fprintf(f, "  %s%*s", left, pad, "");
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(f, "%.*s\n", (int)len, p);
        p += len + (p[len] == '\n');
        if (*p)
            fprintf(f, "%*s", c->col, "");
    }
}

void cli_opt_help(FILE *f, const struct cli_cmd *c)
{
    char left[128];
    for (const struct cli_opt *o = c->opts; !CLI_OPT_END(o); o++) {
        if (o->how == CLI_TEXT) {
            cli_say(f, o->help);
        } else if (o->how == CLI_LAUNCH_ROWS) {
            for (const struct gpu_kernel_opt *k = gpu_kernel_opts; o->help && k->name; k++) {
                if (!(k->cls & o->key) || !k->help)
                    continue;
                if (k->left)
                    snprintf(left, sizeof left, "%s", k->left);
                else
                    snprintf(left, sizeof left, "%s %s", k->name, k->arg);
                help_row(f, c, left, k->help, 0);
            }
        } else if (o->help) {
            const char *arg = o->arg && o->arg[0] ? o->arg : NULL;
            if (o->letter)
                snprintf(left, sizeof left, "-%c, --%s%s%s", o->letter, o->name, arg ? " " : "",
                         arg ? arg : "");
            else
                snprintf(left, sizeof left, "%s--%s%s%s", c->letters ? "    " : "", o->name,
                         arg ? " " : "", arg ? arg : "");
            help_row(f, c, left, o->help, o->num);
        }
    }
}
