/* files.h: the file-system steps behind what banklab reads and saves: XDG directories,
 * mkdir -p, atomic replacement of a file, a new file that never replaces an old one, bounded
 * reads of a file and of lines. Never prints, never exits; errors
 * come back in a struct bl_err (src/base/err.h; status: the errno where there is one). No
 * curses, no CUDA, no cJSON. */
#ifndef BANKLAB_FILES_H
#define BANKLAB_FILES_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../base/err.h"

/* files_xdg_path: "$XDG_VAR/suffix" when the variable xdg_var holds an absolute path (the XDG
 * base directory spec ignores relative ones), else "$HOME/home_rel/suffix". Writes into buf;
 * returns buf, or NULL when neither variable is usable or the path does not fit. */
const char *files_xdg_path(const char *xdg_var, const char *home_rel, const char *suffix,
                           char *buf, size_t size);

/* files_mkdirs: create dir and its missing parents with mode; each must end up a directory.
 * Returns 0, or -1 with err filled. */
int files_mkdirs(const char *dir, mode_t mode, struct bl_err *err);

/* files_own_dir: a directory for this user's own state (the progress file and its lock):
 * created 0700 with its parents when create is set; refused when it belongs to another user
 * or others may write in it (they could plant, hold or replace what banklab keeps there).
 * Missing and not created is fine. Returns 0, or -1 with err saying why.
 * files_own_parent: the same check of the directory that holds path (nothing created). */
int files_own_dir(const char *dir, int create, struct bl_err *err);
int files_own_parent(const char *path, struct bl_err *err);

/* files_write_atomic: replace path with what emit(f, ctx) writes: a temp file in the same
 * directory (created exclusively with mode), fsync, rename over path, then fsync of the
 * directory (best effort). A character device or FIFO at path is written through, a link is
 * followed only when it is trusted (files.c's dir_shared), and in a shared directory anything at
 * path that belongs to another user is refused. emit returns 0, or -1 on failure. On any
 * failure the temp file is removed, path is untouched, and -1 comes back with err filled. */
int files_write_atomic(const char *path, mode_t mode, int (*emit)(FILE *f, void *ctx), void *ctx,
                       struct bl_err *err);

/* files_create_new: write data (len bytes) to a new file at path (mode 0644), never over an
 * old one: created with O_EXCL and O_NOFOLLOW, so an existing file or a symbolic link in its
 * place is neither written through nor replaced (the patched copy `banklab kernel --fix` and
 * the kernel view write next to a learner's file). Returns 0, 1 when path exists already
 * (nothing written, err says so), or -1 with err filled. */
int files_create_new(const char *path, const char *data, size_t len, struct bl_err *err);

/* files_remove_temps: removes the temporary files files_write_atomic leaves when it is
 * killed while writing path (PATH.tmp-XXXXXX beside it: regular files of this user's). Call it
 * only while no other process may be writing path (progress: under its lock). Returns how
 * many were removed. */
int files_remove_temps(const char *path);


/* files_read: the whole regular file at path, at most max bytes, into a new NUL-terminated
 * buffer (the caller frees it); *len gets its length. On failure returns NULL with errno set
 * (from open/read, EISDIR for a directory, EFBIG past max, ENOMEM) and why (if not NULL)
 * holding one line without the path, e.g. "cannot open: No such file or directory". */
char *files_read(const char *path, size_t max, size_t *len, struct bl_err *why);

/* Lines of a file read with bounds (sim --script): a regular file, or anything when asked
 * (stdin); at most FILES_LINES_MAX bytes in all; from anything but a regular file or a
 * terminal, at most FILES_LINES_WAIT_MS without a byte. */
#define FILES_LINES_MAX (64u << 20)
#define FILES_LINES_WAIT_MS 30000
#define FILES_LINE_LONG 1       /* the line did not fit: cut, the rest skipped */
#define FILES_LINE_NUL 2        /* the line holds a NUL byte */

struct files_lines {
    int fd, own, eof, wait_ms;
    size_t total, at, have;
    char buf[8192];
};

/* files_lines_open: path ("-": standard input, any kind) for reading lines. A path that is
 * not a regular file is refused (opened with O_NONBLOCK: a FIFO without a writer does not
 * block) unless any is set. 0, or -1 with why ("is a FIFO, not a regular file"). */
int files_lines_open(struct files_lines *r, const char *path, int any, struct bl_err *why);

/* files_lines_next: the next line (without its \n or \r\n) into line (size bytes, NUL-
 * terminated); *flags gets FILES_LINE_LONG and FILES_LINE_NUL. Returns 1 for a line, 0 at
 * the end, -1 with why (a read error, too large, no input for too long). */
int files_lines_next(struct files_lines *r, char *line, size_t size, int *flags,
                     struct bl_err *why);

void files_lines_close(struct files_lines *r);

#endif
