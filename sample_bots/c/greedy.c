/*
 * greedy.c - a sample Battle Sheep bot in C99 (protocol version 1).
 *
 * A single file with no dependencies: it speaks the protocol described in
 * protocol/PROTOCOL.md and knows just enough of RULES.md to list legal moves.
 * Copy it and improve the evaluation; the plumbing is the boring part.
 *
 *   greedy            plays a one-ply greedy strategy (see choose_* below)
 *   greedy --random   plays uniformly random legal moves (an "instant" bot)
 *   greedy --greedy P plays the greedy move with probability P (0 to 1) at each
 *                     request, else a random one: bots of graded strength
 *                     (bench/bench_continuous.py)
 *
 * Both are deterministic for a given game seed: ties (and random moves) are
 * drawn from a SplitMix64 generator seeded with the game seed, seat and ply.
 *
 * The bot keeps no board between requests: every tile/herd/move request
 * carries the whole state (board= and stacks=), so we rebuild it each time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the board: a fixed grid, hex (q, r) lives at cell idx(q, r) ---------- */

#define SIZE 256               /* grid is SIZE x SIZE hexes ...              */
#define OFF 128                /* ... with (0, 0) in the middle              */
#define LIMIT 120              /* coordinates we accept: |q|, |r| < LIMIT     */
#define MAXPLAYERS 4
#define MAXHEX 4096            /* pasture hexes / stacks we keep in lists     */

static const int DQ[6] = {+1, +1, 0, -1, -1, 0};
static const int DR[6] = {0, -1, -1, 0, +1, +1};
static const char *DNAME[6] = {"E", "NE", "NW", "W", "SW", "SE"};

/* tile shapes: offsets from the anchor, for orientations A, B and C */
static const int TQ[3][4] = {{0, 1, 0, 1}, {0, 1, 1, 2}, {0, 1, 1, 0}};
static const int TR[3][4] = {{0, 0, 1, 1}, {0, 0, -1, -1}, {0, -1, 0, 1}};

static unsigned char pasture[SIZE * SIZE]; /* 1 if the hex is pasture         */
static signed char owner[SIZE * SIZE];     /* player 0..3 of the stack, or -1 */
static int count[SIZE * SIZE];             /* sheep in the stack              */
static unsigned char outside[SIZE * SIZE]; /* non-pasture, reaches the outside */
static int hexes[MAXHEX], nhexes;          /* pasture cells, as indices       */
static int stacks[MAXHEX], nstacks;        /* cells holding a stack           */

static int idx(int q, int r) { return (r + OFF) * SIZE + (q + OFF); }
static int qof(int i) { return i % SIZE - OFF; }
static int rof(int i) { return i / SIZE - OFF; }
static int step(int i, int d) { return i + DR[d] * SIZE + DQ[d]; }
static int in_range(int q, int r) { return q > -LIMIT && q < LIMIT && r > -LIMIT && r < LIMIT; }
static int is_empty(int i) { return pasture[i] && owner[i] < 0; }

/* ---- game facts from the `game` line, and the random generator --------- */

static int me = 0, players = 2, contact = 1, holeborder = 0, random_mode = 0;
static int always_random = 0;   /* --random */
static double greedy_p = 1.0;   /* --greedy P: the chance of a greedy answer */
static unsigned long long game_seed = 0;
static int multigame = 0; /* the referee keeps us for another game after "end" */
static int forfeited[MAXPLAYERS];
static unsigned long long rng_state;

static unsigned long long splitmix64(void)
{
    unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* ---- choosing among candidates: keep the best, break ties at random ---- */
/*
 * Every candidate move is "offered" with a score. We keep the best one; among
 * equal scores each has the same chance to win (reservoir sampling), so with
 * all scores equal (--random) the pick is uniform over the legal moves.
 */
static long best_score;
static int ties;
static char best_move[64];

static void reset_pick(void) { ties = 0; best_move[0] = '\0'; }

static void offer(long score, const char *move)
{
    if (random_mode)
        score = 0;
    if (ties > 0 && score < best_score)
        return;
    if (ties == 0 || score > best_score) {
        best_score = score;
        ties = 0;
    }
    ties++;
    if (splitmix64() % (unsigned long long)ties == 0)
        snprintf(best_move, sizeof best_move, "%s", move);
}

/* ---- parsing the state of a request ------------------------------------ */

static void clear_board(void)
{
    memset(pasture, 0, sizeof pasture);
    memset(owner, -1, sizeof owner);
    memset(count, 0, sizeof count);
    nhexes = nstacks = 0;
}

/* board=Q,R;Q,R;...  ("-" when empty) */
static void parse_board(char *v)
{
    for (char *t = strtok(v, ";"); t; t = strtok(NULL, ";")) {
        int q, r;
        if (sscanf(t, "%d,%d", &q, &r) == 2 && in_range(q, r) && !pasture[idx(q, r)] && nhexes < MAXHEX) {
            pasture[idx(q, r)] = 1;
            hexes[nhexes++] = idx(q, r);
        }
    }
}

/* stacks=Q,R,PLAYER,SHEEP;...  (call after parse_board) */
static void parse_stacks(char *v)
{
    for (char *t = strtok(v, ";"); t; t = strtok(NULL, ";")) {
        int q, r, n;
        char p;
        if (sscanf(t, "%d,%d,%c,%d", &q, &r, &p, &n) == 4 && in_range(q, r) && p >= 'a' && p <= 'd' &&
            nstacks < MAXHEX - 1) { /* one spare slot for choose_move */
            owner[idx(q, r)] = (signed char)(p - 'a');
            count[idx(q, r)] = n;
            stacks[nstacks++] = idx(q, r);
        }
    }
}

/* ---- rules helpers ----------------------------------------------------- */

/* Where sheep leaving cell i in direction d stop (i itself if blocked). */
static int slide_end(int i, int d)
{
    while (is_empty(step(i, d)))
        i = step(i, d);
    return i;
}

/* How many directions a stack on cell i could slide in. */
static int open_dirs(int i)
{
    int n = 0;
    for (int d = 0; d < 6; d++)
        n += is_empty(step(i, d));
    return n;
}

/* Mark the non-pasture cells that reach the outside of the pasture: flood
 * fill over non-pasture cells of the bounding box grown by one hex. */
static void find_outside(void)
{
    static int todo[SIZE * SIZE];
    int qmin = LIMIT, qmax = -LIMIT, rmin = LIMIT, rmax = -LIMIT, n = 0;
    memset(outside, 0, sizeof outside);
    for (int k = 0; k < nhexes; k++) {
        int q = qof(hexes[k]), r = rof(hexes[k]);
        if (q < qmin) qmin = q;
        if (q > qmax) qmax = q;
        if (r < rmin) rmin = r;
        if (r > rmax) rmax = r;
    }
    qmin--, qmax++, rmin--, rmax++;
    for (int r = rmin; r <= rmax; r++) /* seed: the box's non-pasture rim */
        for (int q = qmin; q <= qmax; q++)
            if ((q == qmin || q == qmax || r == rmin || r == rmax) && !pasture[idx(q, r)]) {
                outside[idx(q, r)] = 1;
                todo[n++] = idx(q, r);
            }
    while (n > 0) {
        int i = todo[--n];
        for (int d = 0; d < 6; d++) {
            int j = step(i, d), q = qof(j), r = rof(j);
            if (q >= qmin && q <= qmax && r >= rmin && r <= rmax && !pasture[j] && !outside[j]) {
                outside[j] = 1;
                todo[n++] = j;
            }
        }
    }
}

/* May a herd start on pasture cell i? (find_outside must have run) */
static int is_border(int i)
{
    for (int d = 0; d < 6; d++) {
        int j = step(i, d);
        if (!pasture[j] && (outside[j] || holeborder))
            return 1;
    }
    return 0;
}

/* ---- phase 1: tiles ---------------------------------------------------- */
/* Greedy: the legal tile sharing the most hex edges with the pasture. */
static void choose_tile(void)
{
    static const char ORIENT[3] = {'A', 'B', 'C'};
    char move[64];
    int qmin = LIMIT, qmax = -LIMIT, rmin = LIMIT, rmax = -LIMIT;
    if (nhexes == 0) { /* the first tile: anywhere, so at the origin */
        snprintf(best_move, sizeof best_move, "0,0A");
        return;
    }
    for (int k = 0; k < nhexes; k++) {
        int q = qof(hexes[k]), r = rof(hexes[k]);
        if (q < qmin) qmin = q;
        if (q > qmax) qmax = q;
        if (r < rmin) rmin = r;
        if (r > rmax) rmax = r;
    }
    /* every anchor whose tile could touch the pasture, each tried once */
    for (int r = rmin - 2; r <= rmax + 3; r++)
        for (int q = qmin - 3; q <= qmax + 2; q++)
            for (int o = 0; o < 3; o++) {
                int ok = in_range(q - 3, r - 3) && in_range(q + 3, r + 3), touching = 0, edges = 0;
                for (int h = 0; ok && h < 4; h++) {
                    int c = idx(q + TQ[o][h], r + TR[o][h]), touches = 0;
                    if (pasture[c])
                        ok = 0; /* overlap */
                    for (int d = 0; d < 6; d++)
                        if (pasture[step(c, d)])
                            touches = 1, edges++;
                    touching += touches;
                }
                if (!ok || touching < contact || touching == 0)
                    continue;
                snprintf(move, sizeof move, "%d,%d%c", q, r, ORIENT[o]);
                offer(edges, move);
            }
}

/* ---- phase 2: herds ---------------------------------------------------- */
/* Greedy: the free border hex with the most open directions, then the
 * longest total slide. */
static void choose_herd(void)
{
    char move[64];
    find_outside();
    for (int k = 0; k < nhexes; k++) {
        int i = hexes[k], dirs = 0, room = 0;
        if (owner[i] >= 0 || !is_border(i))
            continue;
        for (int d = 0; d < 6; d++) {
            int len = 0; /* empty hexes in a row that way */
            for (int j = step(i, d); is_empty(j); j = step(j, d))
                len++;
            room += len;
            dirs += len > 0;
        }
        snprintf(move, sizeof move, "%d,%d", qof(i), rof(i));
        offer(100L * dirs + room, move);
    }
}

/* ---- phase 3: moves ---------------------------------------------------- */
/*
 * Evaluation of the position after a move, from our point of view:
 *  + open directions of our stacks that can still move (mobility),
 *  - the same for every opponent still in play,
 *  - sheep stuck in stacks with no way out (they can never score a hex).
 */
static long evaluate(void)
{
    long score = 0, theirs = 0;
    for (int k = 0; k < nstacks; k++) {
        int i = stacks[k], p = owner[i], n = count[i], dirs;
        if (n < 2 || forfeited[p])
            continue;
        dirs = open_dirs(i);
        if (p != me)
            theirs += dirs;
        else if (dirs > 0)
            score += 10L * dirs;
        else
            score -= 6L * (n - 1); /* stuck: n - 1 sheep will never move */
    }
    return score - 10L * theirs / (players - 1); /* opponents on average */
}

/* Greedy: try every legal move, keep the best evaluation. */
static void choose_move(void)
{
    char move[64];
    int mine = nstacks; /* stacks[] grows by one while a move is tried */
    for (int k = 0; k < mine; k++) {
        int from = stacks[k], size = count[from];
        if (owner[from] != me || size < 2)
            continue;
        for (int d = 0; d < 6; d++) {
            int to = slide_end(from, d);
            if (to == from)
                continue; /* blocked right away: not a move */
            for (int n = 1; n < size; n++) {
                long score = 0;
                if (!random_mode) { /* play the move, evaluate, take it back */
                    owner[to] = (signed char)me, count[to] = n, count[from] = size - n;
                    stacks[nstacks++] = to;
                    score = evaluate() - labs((long)size - 2L * n); /* prefer even splits */
                    nstacks--, owner[to] = -1, count[to] = 0, count[from] = size;
                }
                snprintf(move, sizeof move, "%d,%d%s%d", qof(from), rof(from), DNAME[d], n);
                offer(score, move);
            }
        }
    }
}

/* ---- the protocol ------------------------------------------------------ */

/* A tile/herd/move request: rebuild the state, pick, answer one line. */
static void answer_turn(const char *phase, char *rest)
{
    char *board = NULL, *stk = NULL, *forf = NULL;
    long ply = 0;
    for (char *t = strtok(rest, " "); t; t = strtok(NULL, " ")) {
        if (!strncmp(t, "board=", 6)) board = t + 6;
        else if (!strncmp(t, "stacks=", 7)) stk = t + 7;
        else if (!strncmp(t, "forfeit=", 8)) forf = t + 8;
        else if (!strncmp(t, "ply=", 4)) ply = atol(t + 4);
    } /* other keys (time, clocks, since, ...) are not needed here */
    clear_board();
    memset(forfeited, 0, sizeof forfeited);
    if (board) parse_board(board);   /* strtok is done with the line now, */
    if (stk) parse_stacks(stk);      /* so it can split these fields      */
    for (; forf && *forf; forf++)
        if (*forf >= 'a' && *forf <= 'd')
            forfeited[*forf - 'a'] = 1;
    /* same game seed, seat and ply: same answer */
    rng_state = game_seed ^ (0x9E3779B97F4A7C15ULL * (unsigned long long)(me + 1)) ^
                ((unsigned long long)ply << 32);
    /* a draw only when P < 1, so that plain greedy answers as it always did */
    random_mode = always_random ||
                  (greedy_p < 1.0 && (double)(splitmix64() >> 11) / 9007199254740992.0 >= greedy_p);
    reset_pick();
    if (!strcmp(phase, "tile")) choose_tile();
    else if (!strcmp(phase, "herd")) choose_herd();
    else choose_move();
    if (!best_move[0]) { /* the referee only asks when we can move */
        fprintf(stderr, "greedy: no legal %s found\n", phase);
        snprintf(best_move, sizeof best_move, "%s", "0,0");
    }
    if (!random_mode && !strcmp(phase, "move"))
        printf("info eval %ld\n", best_score);
    printf("%s %s\n", phase, best_move);
}

/* game id=... seat=b players=2 seed=42 ... : remember what we need. */
static void read_game(char *rest)
{
    multigame = 0; /* every game says it again */
    for (char *t = strtok(rest, " "); t; t = strtok(NULL, " ")) {
        if (!strncmp(t, "seat=", 5)) me = t[5] - 'a';
        else if (!strncmp(t, "players=", 8)) players = atoi(t + 8);
        else if (!strncmp(t, "seed=", 5)) game_seed = strtoull(t + 5, NULL, 10);
        else if (!strncmp(t, "contact=", 8)) contact = atoi(t + 8);
        else if (!strncmp(t, "holeborder=", 11)) holeborder = atoi(t + 11);
        else if (!strcmp(t, "multigame=1")) multigame = 1;
    } /* unknown keys are ignored, as the protocol asks */
    if (me < 0 || me >= MAXPLAYERS) me = 0;
    if (players < 2 || players > MAXPLAYERS) players = 2;
}

int main(int argc, char **argv)
{
    static char line[1 << 16]; /* requests can be several KB long */
    for (int a = 1; a < argc; a++)
        if (!strcmp(argv[a], "--random"))
            always_random = 1;
        else if (!strcmp(argv[a], "--greedy") && a + 1 < argc)
            greedy_p = atof(argv[++a]);
    setvbuf(stdout, NULL, _IONBF, 0); /* every answer leaves at once */

    while (fgets(line, sizeof line, stdin)) {
        char *rest, *word;
        line[strcspn(line, "\r\n")] = '\0';
        word = line;
        rest = strchr(line, ' ');
        if (rest) *rest++ = '\0';
        else rest = line + strlen(line);

        if (!strcmp(word, "hello"))
            printf("hello 1 %s multigame\n", always_random ? "random-c" : "greedy-c");
        else if (!strcmp(word, "game")) {
            read_game(rest);
            printf("ready\n");
        } else if (!strcmp(word, "tile") || !strcmp(word, "herd") || !strcmp(word, "move"))
            answer_turn(word, rest);
        else if (!strcmp(word, "end")) {
            if (!multigame)
                break; /* the game is over: exit */
            /* else wait for the next "game" (or the end of our input) */
        }
        else if (word[0])
            fprintf(stderr, "greedy: ignoring unknown message %s\n", word);
    }
    return 0;
}
