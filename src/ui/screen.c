/* screen.c: the stack of screens (screen.h). The only code that changes which screen is
 * shown: push, pop, reset. Each screen's state is allocated here once and handed to its
 * functions; no screen reaches into another's. The table of screens comes from app.c
 * (ui_screens_init), so this file names no screen and every screen may call it. */
#include <stdlib.h>

#include "app.h"

/* the screen with that id, from the table app.c gave */
static const struct ui_screen *row(const struct app *a, enum ui_screen_id id)
{
    return a->stack.table[id];
}

int ui_screens_init(struct app *a, const struct ui_screen *const *table)
{
    struct ui_stack *k = &a->stack;
    k->table = table;
    for (int i = 0; i < UI_SCREENS; i++) {
        k->state[i] = calloc(1, table[i]->state_size ? table[i]->state_size : 1);
        if (!k->state[i])
            return -1;
    }
    for (int i = 0; i < UI_SCREENS; i++)
        if (table[i]->init)
            table[i]->init(a, k->state[i]);
    return 0;
}

void ui_screens_done(struct app *a)
{
    struct ui_stack *k = &a->stack;
    if (!k->table)
        return;
    while (k->depth > 0) {
        enum ui_screen_id id = k->id[--k->depth];
        if (row(a, id)->leave && k->state[id])
            row(a, id)->leave(a, k->state[id]);
    }
    for (int i = 0; i < UI_SCREENS; i++) {
        if (k->state[i] && row(a, i)->done)
            row(a, i)->done(a, k->state[i]);
        free(k->state[i]);
        k->state[i] = NULL;
    }
}

static enum ui_screen_id ui_top(const struct app *a)
{
    return a->stack.depth > 0 ? a->stack.id[a->stack.depth - 1] : UI_ERROR;
}

enum ui_screen_id ui_under(const struct app *a)
{
    return a->stack.depth > 1 ? a->stack.id[a->stack.depth - 2] : UI_ERROR;
}

void *ui_state(const struct app *a, enum ui_screen_id id)
{
    return a->stack.state[id];
}

static void pop_one(struct app *a)
{
    struct ui_stack *k = &a->stack;
    enum ui_screen_id id = k->id[--k->depth];
    if (row(a, id)->leave)
        row(a, id)->leave(a, k->state[id]);
}

void ui_pop(struct app *a)
{
    struct ui_stack *k = &a->stack;
    if (k->depth <= 1)
        return;
    pop_one(a);
    enum ui_screen_id top = ui_top(a);
    if (row(a, top)->resume)
        row(a, top)->resume(a, k->state[top]);
}

int ui_push(struct app *a, enum ui_screen_id id)
{
    struct ui_stack *k = &a->stack;
    for (int i = 0; i < k->depth; i++)
        if (k->id[i] == id) {        /* already there: back to it */
            while (k->depth > i + 1)
                ui_pop(a);
            return 0;
        }
    if (k->depth >= UI_STACK_MAX)
        return -1;
    if (row(a, id)->enter && row(a, id)->enter(a, k->state[id]) != 0)
        return -1;
    k->id[k->depth++] = id;
    return 0;
}

void ui_reset(struct app *a, enum ui_screen_id base)
{
    struct ui_stack *k = &a->stack;
    while (k->depth > 0)
        pop_one(a);
    k->id[k->depth++] = base;
    if (row(a, base)->enter)
        row(a, base)->enter(a, k->state[base]);
}

unsigned ui_keyset(const struct app *a)
{
    enum ui_screen_id top = ui_top(a);
    const struct ui_screen *s = row(a, top);
    return s->keys | (s->modes ? s->modes(a, a->stack.state[top]) : 0);
}

enum ui_result ui_key(struct app *a, const struct ui_key *k)
{
    enum ui_screen_id top = ui_top(a);
    if (!row(a, top)->key)
        return UI_IGNORED;
    return row(a, top)->key(a, a->stack.state[top], k);
}

int ui_idle(struct app *a)
{
    int redraw = 0;
    for (int i = 0; i < UI_SCREENS; i++)
        if (row(a, (enum ui_screen_id)i)->idle && a->stack.state[i])
            redraw |= row(a, (enum ui_screen_id)i)->idle(a, a->stack.state[i]);
    return redraw;
}

void ui_draw(const struct app *a)
{
    const struct ui_stack *k = &a->stack;
    int from = k->depth - 1;
    while (from > 0 && row(a, k->id[from])->overlay)
        from--;
    for (int i = from; i >= 0 && i < k->depth; i++)
        row(a, k->id[i])->draw(a, k->state[k->id[i]]);
}

int ui_overlay_on_top(const struct app *a)
{
    return a->stack.depth > 0 && row(a, ui_top(a))->overlay;
}
