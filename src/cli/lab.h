/* lab.h: how `banklab lab` (lab.c) prints, in lab_text.c: its lines wrapped for a line
 * terminal by the Chinese line-breaking rules, the tutorial's key instructions turned into
 * what to type at the lab's prompts, and the number of accesses of a scene. */
#ifndef BANKLAB_CLI_LAB_H
#define BANKLAB_CLI_LAB_H

#include <stdio.h>

#include "../lesson/lesson.h"

/* lab_locale: a UTF-8 LC_CTYPE for measuring text in columns (the locale's, else C.UTF-8). */
void lab_locale(void);


/* lab_out: printf for the lab's own lines on stdout: each complete line is wrapped at
 * lab_width() by the Chinese line-breaking rules (continuation lines indented as the line); text
 * after the last newline waits. lab_flush: writes what waits (a prompt) and flushes. The text
 * must be escaped by the caller where it came from outside (CLI_CLEAN). */
void lab_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lab_flush(void);

/* lab_prompt_text: a tutorial step's text for the lab's prompts: "with p / P" (the keys of a
 * parameter of s) becomes "at the PAD prompt" (in Chinese too), and a
 * sentence that sends the learner to a key the lab does not have ("check other warps with w")
 * is left out. Into out (n bytes). */
void lab_prompt_text(const struct lesson_scene *s, enum lesson_lang lang, const char *text,
                     char *out, size_t n);

/* lab_access_count: how many accesses the scene's code has at its defaults (>= 1). */
int lab_access_count(const struct lesson_scene *s);

#endif
