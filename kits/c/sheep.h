/* sheep.h - the Battle Sheep protocol and rules for a bot: you need not change this file.
 *
 * It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
 * structs, lists the legal moves of a position and plays a move on a copy of it.
 * MyBot.c holds the strategy; sh_run() below is the conversation with the referee.
 * One header with no library beyond C11's own: include it in one .c file.
 */
#ifndef SHEEP_H
#define SHEEP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SH_LIMIT 999        /* every hex has -999 <= q, r <= 999 */
#define SH_MAX_HEXES 4096   /* pasture hexes (the largest game has 1024) */
#define SH_TABLE 8192       /* hash table of the pasture: twice SH_MAX_HEXES */
#define SH_MAX_PLAYERS 4
#define SH_MAX_SINCE 64
#define SH_MAX_MOVES 65536
#define SH_MOVE_CHARS 24

/* The six directions, as the protocol names them, and the step each adds to (q, r). */
static const char *const SH_DIR_NAMES[6] = {"E", "NE", "NW", "W", "SW", "SE"};
static const int SH_DQ[6] = {1, 1, 0, -1, -1, 0};
static const int SH_DR[6] = {0, -1, -1, 0, 1, 1};
/* The hexes a tile covers, as offsets from its anchor, for orientations A, B and C. */
static const int SH_TILE[3][4][2] = {
    {{0, 0}, {1, 0}, {0, 1}, {1, 1}},
    {{0, 0}, {1, 0}, {1, -1}, {2, -1}},
    {{0, 0}, {1, -1}, {1, 0}, {0, 1}},
};

/* The `game` message: what is fixed for one game. */
typedef struct {
    char id[128];
    char seat;          /* my letter: 'a' plays first */
    int players;
    uint64_t seed;      /* for my own randomness: the same seed replays my moves */
    int sheep, tiles, contact, holeborder;
    long long movetime; /* ms per answer, 0 if none */
    long long base;     /* the clock in ms, 0 if none */
    long long increment;
    char names[SH_MAX_PLAYERS][65];
    int multigame;      /* 1: after `end`, wait for the next `game` */
} ShGame;

typedef struct { int q, r; char player; int sheep; } ShStack;

/* A board: the pasture, the stacks, whose move it is and the rules that apply. */
typedef struct {
    char phase[8];      /* "tile", "herd" or "move" */
    char me;
    int sheep, contact, holeborder;
    int nhexes;
    int q[SH_MAX_HEXES], r[SH_MAX_HEXES];
    int stack[SH_MAX_HEXES]; /* index into stacks of the stack on each hex, or -1 */
    int table[SH_TABLE];     /* hex index + 1 by hash of (q, r); 0 for none */
    int nstacks;
    ShStack stacks[SH_MAX_HEXES];
} ShPosition;

/* A `tile`, `herd` or `move` request: it is my turn. */
typedef struct {
    char phase[8];
    long long time;     /* ms I have for this answer */
    long long ply;
    long long clocks[SH_MAX_PLAYERS]; /* each seat's clock in ms; -1 for a seat without one */
    int nsince;         /* the others' moves since my last answer (the first SH_MAX_SINCE) */
    char since_player[SH_MAX_SINCE];
    char since_move[SH_MAX_SINCE][SH_MOVE_CHARS];
    int tiles[SH_MAX_PLAYERS]; /* tiles each seat still holds */
    char forfeit[SH_MAX_PLAYERS + 1]; /* letters of the forfeited seats */
    int ndaisies;
    int daisy_q[SH_MAX_HEXES], daisy_r[SH_MAX_HEXES], daisy_count[SH_MAX_HEXES];
    ShPosition position;
} ShTurn;

/* The `end` notice, in seat order. */
typedef struct {
    int ranks[SH_MAX_PLAYERS], hexes[SH_MAX_PLAYERS], groups[SH_MAX_PLAYERS], daisies[SH_MAX_PLAYERS];
    char faults[SH_MAX_PLAYERS][24]; /* "-" for none */
} ShEnd;

typedef struct { int n; char move[SH_MAX_MOVES][SH_MOVE_CHARS]; } ShMoves;

/* SplitMix64: a small random number generator that gives the same numbers in every kit. */
typedef struct { uint64_t state; } ShRng;

static uint64_t sh_rng_next(ShRng *rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A number from 0 to n - 1. */
static int sh_rng_below(ShRng *rng, int n) { return (int)(sh_rng_next(rng) % (uint64_t)n); }

/* ---- the position ---- */

static unsigned sh_hash(int q, int r) { return ((unsigned)(q + 1024) * 2654435761u ^ (unsigned)(r + 1024) * 40503u) % SH_TABLE; }

/* The index of hex (q, r) in the pasture, or -1. */
static int sh_find(const ShPosition *p, int q, int r) {
    for (unsigned h = sh_hash(q, r);; h = (h + 1) % SH_TABLE) {
        int i = p->table[h] - 1;
        if (i < 0) return -1;
        if (p->q[i] == q && p->r[i] == r) return i;
    }
}

static void sh_add_hex(ShPosition *p, int q, int r) {
    if (sh_find(p, q, r) >= 0 || p->nhexes >= SH_MAX_HEXES) return;
    int i = p->nhexes++;
    p->q[i] = q; p->r[i] = r; p->stack[i] = -1;
    unsigned h = sh_hash(q, r);
    while (p->table[h]) h = (h + 1) % SH_TABLE;
    p->table[h] = i + 1;
}

static void sh_add_stack(ShPosition *p, int q, int r, char player, int sheep) {
    int i = sh_find(p, q, r);
    if (i < 0 || p->nstacks >= SH_MAX_HEXES) return;
    p->stack[i] = p->nstacks;
    p->stacks[p->nstacks++] = (ShStack){q, r, player, sheep};
}

static int sh_is_pasture(const ShPosition *p, int q, int r) { return sh_find(p, q, r) >= 0; }

/* A pasture hex with no stack on it. */
static int sh_is_free(const ShPosition *p, int q, int r) {
    int i = sh_find(p, q, r);
    return i >= 0 && p->stack[i] < 0;
}

/* Where sheep leaving (q, r) in direction d stop: 1 and the hex, or 0 if they cannot move. */
static int sh_slide(const ShPosition *p, int q, int r, int d, int *end_q, int *end_r) {
    if (!sh_is_free(p, q + SH_DQ[d], r + SH_DR[d])) return 0;
    while (sh_is_free(p, q + SH_DQ[d], r + SH_DR[d])) { q += SH_DQ[d]; r += SH_DR[d]; }
    *end_q = q; *end_r = r;
    return 1;
}

/* How many (stack, direction) pairs of `player` can slide. */
static int sh_mobility(const ShPosition *p, char player) {
    int n = 0;
    for (int i = 0; i < p->nstacks; i++) {
        const ShStack *s = &p->stacks[i];
        if (s->player != player || s->sheep < 2) continue;
        for (int d = 0; d < 6; d++) n += sh_is_free(p, s->q + SH_DQ[d], s->r + SH_DR[d]);
    }
    return n;
}

static int sh_orientation(char c) { return c - 'A'; }

/* How many hex edges the tile `move` ("2,-1B") shares with the pasture. */
static int sh_tile_contact(const ShPosition *p, const char *move) {
    int q, r; char o;
    if (sscanf(move, "%d,%d%c", &q, &r, &o) != 3) return 0;
    int n = 0;
    for (int c = 0; c < 4; c++) {
        int hq = q + SH_TILE[sh_orientation(o)][c][0], hr = r + SH_TILE[sh_orientation(o)][c][1];
        for (int d = 0; d < 6; d++) n += sh_is_pasture(p, hq + SH_DQ[d], hr + SH_DR[d]);
    }
    return n;
}

static int sh_tile_fits(const ShPosition *p, int q, int r, int o) {
    int touching = 0;
    for (int c = 0; c < 4; c++) {
        int hq = q + SH_TILE[o][c][0], hr = r + SH_TILE[o][c][1];
        if (hq < -SH_LIMIT || hq > SH_LIMIT || hr < -SH_LIMIT || hr > SH_LIMIT) return 0;
        if (sh_is_pasture(p, hq, hr)) return 0;
        for (int d = 0; d < 6; d++) {
            if (sh_is_pasture(p, hq + SH_DQ[d], hr + SH_DR[d])) { touching++; break; }
        }
    }
    return touching >= p->contact;
}

static void sh_bounds(const ShPosition *p, int grow, int *q0, int *q1, int *r0, int *r1) {
    *q0 = *r0 = 1 << 20; *q1 = *r1 = -(1 << 20);
    for (int i = 0; i < p->nhexes; i++) {
        if (p->q[i] - grow < *q0) *q0 = p->q[i] - grow;
        if (p->q[i] + grow > *q1) *q1 = p->q[i] + grow;
        if (p->r[i] - grow < *r0) *r0 = p->r[i] - grow;
        if (p->r[i] + grow > *r1) *r1 = p->r[i] + grow;
    }
}

static void sh_push(ShMoves *out, const char *move) {
    if (out->n < SH_MAX_MOVES) snprintf(out->move[out->n++], SH_MOVE_CHARS, "%s", move);
}

/* 1 for each cell of the box q0..q1 x r0..r1 off the pasture that reaches the outside. */
static unsigned char *sh_outside(const ShPosition *p, int q0, int q1, int r0, int r1) {
    int w = q1 - q0 + 1, h = r1 - r0 + 1;
    unsigned char *out = calloc((size_t)w * h, 1);
    int *todo = malloc(sizeof(int) * 2 * (size_t)w * h);
    int n = 0;
    if (!out || !todo) { fprintf(stderr, "sheep.h: out of memory\n"); exit(1); }
    for (int q = q0; q <= q1; q++)
        for (int r = r0; r <= r1; r++)
            if ((q == q0 || q == q1 || r == r0 || r == r1) && !sh_is_pasture(p, q, r)) {
                out[(q - q0) * h + (r - r0)] = 1;
                todo[n++] = q; todo[n++] = r;
            }
    while (n > 0) {
        int r = todo[--n], q = todo[--n];
        for (int d = 0; d < 6; d++) {
            int nq = q + SH_DQ[d], nr = r + SH_DR[d];
            if (nq < q0 || nq > q1 || nr < r0 || nr > r1) continue;
            if (out[(nq - q0) * h + (nr - r0)] || sh_is_pasture(p, nq, nr)) continue;
            out[(nq - q0) * h + (nr - r0)] = 1;
            todo[n++] = nq; todo[n++] = nr;
        }
    }
    free(todo);
    return out;
}

/* Every legal move of the phase, as the protocol writes it (without the phase word). */
static void sh_legal_moves(const ShPosition *p, ShMoves *out) {
    char move[SH_MOVE_CHARS];
    out->n = 0;
    if (strcmp(p->phase, "tile") == 0) {
        if (p->nhexes == 0) { sh_push(out, "0,0A"); sh_push(out, "0,0B"); sh_push(out, "0,0C"); return; }
        int q0, q1, r0, r1;
        sh_bounds(p, 3, &q0, &q1, &r0, &r1); /* every tile that touches lies in the box grown by 3 */
        for (int q = q0; q <= q1; q++)
            for (int r = r0; r <= r1; r++)
                for (int o = 0; o < 3; o++)
                    if (sh_tile_fits(p, q, r, o)) {
                        snprintf(move, sizeof move, "%d,%d%c", q, r, 'A' + o);
                        sh_push(out, move);
                    }
    } else if (strcmp(p->phase, "herd") == 0) {
        int q0, q1, r0, r1;
        sh_bounds(p, 1, &q0, &q1, &r0, &r1);
        unsigned char *outside = sh_outside(p, q0, q1, r0, r1);
        int h = r1 - r0 + 1;
        for (int i = 0; i < p->nhexes; i++) {
            if (p->stack[i] >= 0) continue;
            int border = 0;
            for (int d = 0; d < 6 && !border; d++) {
                int nq = p->q[i] + SH_DQ[d], nr = p->r[i] + SH_DR[d];
                if (!sh_is_pasture(p, nq, nr)) border = p->holeborder || outside[(nq - q0) * h + (nr - r0)];
            }
            if (border) {
                snprintf(move, sizeof move, "%d,%d", p->q[i], p->r[i]);
                sh_push(out, move);
            }
        }
        free(outside);
    } else {
        for (int i = 0; i < p->nstacks; i++) {
            const ShStack *s = &p->stacks[i];
            if (s->player != p->me || s->sheep < 2) continue;
            for (int d = 0; d < 6; d++) {
                if (!sh_is_free(p, s->q + SH_DQ[d], s->r + SH_DR[d])) continue;
                for (int n = 1; n < s->sheep; n++) {
                    snprintf(move, sizeof move, "%d,%d%s%d", s->q, s->r, SH_DIR_NAMES[d], n);
                    sh_push(out, move);
                }
            }
        }
    }
}

/* `after` := this position with `move` played by me (the move must be legal). */
static void sh_play(const ShPosition *p, const char *move, ShPosition *after) {
    int q, r, n;
    char o, dir[3] = {0};
    *after = *p;
    if (strcmp(p->phase, "tile") == 0 && sscanf(move, "%d,%d%c", &q, &r, &o) == 3) {
        for (int c = 0; c < 4; c++)
            sh_add_hex(after, q + SH_TILE[sh_orientation(o)][c][0], r + SH_TILE[sh_orientation(o)][c][1]);
    } else if (strcmp(p->phase, "herd") == 0 && sscanf(move, "%d,%d", &q, &r) == 2) {
        sh_add_stack(after, q, r, p->me, p->sheep);
    } else if (sscanf(move, "%d,%d%2[A-Z]%d", &q, &r, dir, &n) == 4) {
        for (int d = 0; d < 6; d++) {
            int eq, er;
            if (strcmp(dir, SH_DIR_NAMES[d]) != 0 || !sh_slide(p, q, r, d, &eq, &er)) continue;
            after->stacks[after->stack[sh_find(after, q, r)]].sheep -= n;
            sh_add_stack(after, eq, er, p->me, n);
        }
    }
}

/* ---- reading the referee's messages ---- */

/* The value of `key=` among the words of a line, or NULL. */
static const char *sh_field(char **words, int nwords, const char *key) {
    size_t k = strlen(key);
    for (int i = 1; i < nwords; i++)
        if (strncmp(words[i], key, k) == 0 && words[i][k] == '=') return words[i] + k + 1;
    return NULL;
}

static long long sh_number(char **words, int nwords, const char *key, long long missing) {
    const char *v = sh_field(words, nwords, key);
    return v ? strtoll(v, NULL, 10) : missing;
}

/* A `;`-separated list of numbers ("-" is -1) into out[]; how many there were. */
static int sh_numbers(const char *text, long long *out, int max) {
    int n = 0;
    if (!text || strcmp(text, "-") == 0) return 0;
    for (const char *s = text; *s && n < max;) {
        out[n++] = *s == '-' && (s[1] == ';' || s[1] == '\0') ? -1 : strtoll(s, NULL, 10);
        const char *semi = strchr(s, ';');
        if (!semi) break;
        s = semi + 1;
    }
    return n;
}

static void sh_int_list(const char *text, int *out) {
    long long v[SH_MAX_PLAYERS];
    int n = sh_numbers(text, v, SH_MAX_PLAYERS);
    for (int i = 0; i < SH_MAX_PLAYERS; i++) out[i] = i < n ? (int)v[i] : 0;
}

static void sh_read_game(char **w, int n, ShGame *g) {
    const char *v;
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "%s", (v = sh_field(w, n, "id")) ? v : "");
    g->seat = (v = sh_field(w, n, "seat")) ? v[0] : 'a';
    g->players = (int)sh_number(w, n, "players", 2);
    g->seed = (v = sh_field(w, n, "seed")) ? strtoull(v, NULL, 10) : 0;
    g->sheep = (int)sh_number(w, n, "sheep", 16);
    g->tiles = (int)sh_number(w, n, "tiles", 4);
    g->contact = (int)sh_number(w, n, "contact", 1);
    g->holeborder = (int)sh_number(w, n, "holeborder", 0);
    g->movetime = sh_number(w, n, "movetime", 0);
    g->base = sh_number(w, n, "base", 0);
    g->increment = sh_number(w, n, "increment", 0);
    if ((v = sh_field(w, n, "names"))) {
        for (int i = 0; i < SH_MAX_PLAYERS && *v; i++) {
            size_t len = strcspn(v, ",");
            snprintf(g->names[i], sizeof g->names[i], "%.*s", (int)(len < 64 ? len : 64), v);
            v += len + (v[len] == ',');
        }
    }
    g->multigame = (v = sh_field(w, n, "multigame")) && strcmp(v, "1") == 0;
}

/* Calls f(item, data) for each `;`-separated item of a list ("-" is empty). */
static void sh_each(const char *text, void (*f)(const char *, void *), void *data) {
    char item[256];
    if (!text || strcmp(text, "-") == 0) return;
    while (*text) {
        size_t len = strcspn(text, ";");
        snprintf(item, sizeof item, "%.*s", (int)(len < 255 ? len : 255), text);
        f(item, data);
        text += len + (text[len] == ';');
    }
}

static void sh_on_hex(const char *item, void *data) {
    int q, r;
    if (sscanf(item, "%d,%d", &q, &r) == 2) sh_add_hex((ShPosition *)data, q, r);
}

static void sh_on_stack(const char *item, void *data) {
    int q, r, sheep; char player;
    if (sscanf(item, "%d,%d,%c,%d", &q, &r, &player, &sheep) == 4) sh_add_stack((ShPosition *)data, q, r, player, sheep);
}

static void sh_on_daisy(const char *item, void *data) {
    ShTurn *t = data;
    int q, r, count;
    if (t->ndaisies < SH_MAX_HEXES && sscanf(item, "%d,%d,%d", &q, &r, &count) == 3) {
        t->daisy_q[t->ndaisies] = q; t->daisy_r[t->ndaisies] = r; t->daisy_count[t->ndaisies++] = count;
    }
}

static void sh_on_since(const char *item, void *data) {
    ShTurn *t = data;
    if (t->nsince < SH_MAX_SINCE && item[0] && item[1] == ':') {
        t->since_player[t->nsince] = item[0];
        snprintf(t->since_move[t->nsince++], SH_MOVE_CHARS, "%.23s", item + 2);
    }
}

static void sh_read_turn(char **w, int n, const ShGame *g, ShTurn *t) {
    const char *v;
    long long clocks[SH_MAX_PLAYERS];
    memset(t, 0, sizeof *t);
    snprintf(t->phase, sizeof t->phase, "%s", w[0]);
    t->time = sh_number(w, n, "time", 0);
    t->ply = sh_number(w, n, "ply", 0);
    int nclocks = sh_numbers(sh_field(w, n, "clocks"), clocks, SH_MAX_PLAYERS);
    for (int i = 0; i < SH_MAX_PLAYERS; i++) t->clocks[i] = i < nclocks ? clocks[i] : -1;
    sh_each(sh_field(w, n, "since"), sh_on_since, t);
    sh_int_list(sh_field(w, n, "tiles"), t->tiles);
    v = sh_field(w, n, "forfeit");
    snprintf(t->forfeit, sizeof t->forfeit, "%s", v && strcmp(v, "-") != 0 ? v : "");
    sh_each(sh_field(w, n, "daisies"), sh_on_daisy, t);
    ShPosition *p = &t->position;
    snprintf(p->phase, sizeof p->phase, "%s", w[0]);
    p->me = g->seat;
    p->sheep = g->sheep;
    p->contact = g->contact;
    p->holeborder = g->holeborder;
    sh_each(sh_field(w, n, "board"), sh_on_hex, p);
    sh_each(sh_field(w, n, "stacks"), sh_on_stack, p);
}

static void sh_read_end(char **w, int n, ShEnd *e) {
    const char *v;
    memset(e, 0, sizeof *e);
    sh_int_list(sh_field(w, n, "ranks"), e->ranks);
    sh_int_list(sh_field(w, n, "hexes"), e->hexes);
    sh_int_list(sh_field(w, n, "groups"), e->groups);
    sh_int_list(sh_field(w, n, "daisies"), e->daisies);
    if ((v = sh_field(w, n, "faults"))) {
        for (int i = 0; i < SH_MAX_PLAYERS && *v; i++) {
            size_t len = strcspn(v, ";");
            snprintf(e->faults[i], sizeof e->faults[i], "%.*s", (int)(len < 23 ? len : 23), v);
            v += len + (v[len] == ';');
        }
    }
}

/* One line of any length from stdin (without its newline), or NULL at the end of input. */
static char *sh_read_line(void) {
    static char *buf = NULL;
    static size_t cap = 0;
    size_t len = 0;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        if (len + 2 > cap) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap);
            if (!buf) { fprintf(stderr, "sheep.h: out of memory\n"); exit(1); }
        }
        buf[len++] = (char)c;
    }
    if (c == EOF && len == 0) return NULL;
    if (!buf) { buf = malloc(cap = 65536); if (!buf) exit(1); }
    buf[len] = '\0';
    return buf;
}

/* Write one line and flush it: an answer left in the buffer never arrives. */
static void sh_send(const char *line) {
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

typedef void (*ShChoose)(const ShGame *game, const ShTurn *turn, ShRng *rng, char *move);
typedef void (*ShOnEnd)(const ShGame *game, const ShEnd *end);

/* Answer the referee until the last game ends or the input closes. */
static int sh_run(const char *name, ShChoose choose, ShOnEnd on_end) {
    static ShGame game;
    static ShTurn turn;   /* large: kept off the stack */
    static char *words[8192];
    static char answer[64 + SH_MOVE_CHARS];
    ShRng rng = {0};
    char *line;
    game.seat = 'a';
    while ((line = sh_read_line()) != NULL) {
        int n = 0;
        for (char *w = strtok(line, " \t\r"); w && n < 8192; w = strtok(NULL, " \t\r")) words[n++] = w;
        if (n == 0) continue;
        if (strcmp(words[0], "hello") == 0) {
            snprintf(answer, sizeof answer, "hello 1 %s multigame", name); /* may play several games in one process */
            sh_send(answer);
        } else if (strcmp(words[0], "game") == 0) {
            sh_read_game(words, n, &game);
            rng.state = game.seed; /* a fresh generator for every game: replays repeat */
            sh_send("ready");
        } else if (!strcmp(words[0], "tile") || !strcmp(words[0], "herd") || !strcmp(words[0], "move")) {
            char move[SH_MOVE_CHARS] = "";
            sh_read_turn(words, n, &game, &turn);
            choose(&game, &turn, &rng, move);
            snprintf(answer, sizeof answer, "%s %s", words[0], move);
            sh_send(answer);
        } else if (strcmp(words[0], "end") == 0) {
            ShEnd end;
            sh_read_end(words, n, &end);
            on_end(&game, &end);
            if (!game.multigame) return 0;
        } else {
            fprintf(stderr, "%s: ignoring '%s' (a message of a later protocol version?)\n", name, words[0]);
        }
    }
    return 0;
}

#endif
