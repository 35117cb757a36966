// A Battle Sheep bot in Java that plays the first legal move it finds: small, but a real JVM
// bot, so the tests see what a JVM needs from the arena's limits (it is not a strong player).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

public final class Bot {
    static final int[] DQ = {1, 1, 0, -1, -1, 0};
    static final int[] DR = {0, -1, -1, 0, 1, 1};
    static final String[] DNAME = {"E", "NE", "NW", "W", "SW", "SE"};
    static final int[][] TQ = {{0, 1, 0, 1}, {0, 1, 1, 2}, {0, 1, 1, 0}};
    static final int[][] TR = {{0, 0, 1, 1}, {0, 0, -1, -1}, {0, -1, 0, 1}};

    static int me = 0, contact = 1, holeborder = 0;
    // LinkedHashSet: a fixed iteration order, so the same game gets the same answers.
    static Set<Long> pasture = new LinkedHashSet<>();
    static Map<Long, int[]> stacks = new HashMap<>(); // hex -> {player, sheep}

    static long key(int q, int r) { return ((long) q << 32) ^ (r & 0xffffffffL); }
    static int q(long k) { return (int) (k >> 32); }
    static int r(long k) { return (int) k; }
    static boolean empty(long k) { return pasture.contains(k) && !stacks.containsKey(k); }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "US-ASCII"));
        PrintStream out = new PrintStream(System.out, false, "US-ASCII");
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" +");
            switch (words[0]) {
                case "hello": out.println("hello 1 java-first"); break;
                case "game": readGame(words); out.println("ready"); break;
                case "tile": case "herd": case "move": out.println(words[0] + " " + answer(words)); break;
                case "end": out.flush(); return;
                default: break; // unknown messages are ignored, as the protocol asks
            }
            out.flush(); // an answer left in the buffer never arrives
        }
    }

    static void readGame(String[] words) {
        for (String w : words) {
            if (w.startsWith("seat=")) me = w.charAt(5) - 'a';
            else if (w.startsWith("contact=")) contact = Integer.parseInt(w.substring(8));
            else if (w.startsWith("holeborder=")) holeborder = Integer.parseInt(w.substring(11));
        }
    }

    static String answer(String[] words) {
        pasture.clear();
        stacks.clear();
        for (String w : words) {
            if (w.startsWith("board=") && !w.equals("board=-")) {
                for (String h : w.substring(6).split(";")) {
                    String[] c = h.split(",");
                    pasture.add(key(Integer.parseInt(c[0]), Integer.parseInt(c[1])));
                }
            } else if (w.startsWith("stacks=") && !w.equals("stacks=-")) {
                for (String s : w.substring(7).split(";")) {
                    String[] c = s.split(",");
                    stacks.put(key(Integer.parseInt(c[0]), Integer.parseInt(c[1])),
                            new int[] {c[2].charAt(0) - 'a', Integer.parseInt(c[3])});
                }
            }
        }
        switch (words[0]) {
            case "tile": return tile();
            case "herd": return herd();
            default: return move();
        }
    }

    static String tile() {
        if (pasture.isEmpty()) return "0,0A";
        for (long h : pasture) {
            for (int dq = -3; dq <= 3; dq++) {
                for (int dr = -3; dr <= 3; dr++) {
                    for (int o = 0; o < 3; o++) {
                        int aq = q(h) + dq, ar = r(h) + dr, touching = 0;
                        boolean ok = true;
                        for (int i = 0; i < 4 && ok; i++) {
                            int cq = aq + TQ[o][i], cr = ar + TR[o][i];
                            if (pasture.contains(key(cq, cr))) ok = false;
                            boolean touches = false;
                            for (int d = 0; d < 6; d++) touches |= pasture.contains(key(cq + DQ[d], cr + DR[d]));
                            if (touches) touching++;
                        }
                        if (ok && touching >= Math.max(1, contact)) return aq + "," + ar + "ABC".charAt(o);
                    }
                }
            }
        }
        return "0,0A";
    }

    static String herd() {
        Set<Long> outside = outside();
        for (long h : pasture) {
            if (stacks.containsKey(h)) continue;
            for (int d = 0; d < 6; d++) {
                long n = key(q(h) + DQ[d], r(h) + DR[d]);
                if (!pasture.contains(n) && (holeborder == 1 || outside.contains(n))) return q(h) + "," + r(h);
            }
        }
        return "0,0";
    }

    // The non-pasture hexes connected to the outside: a flood over the box around the pasture.
    static Set<Long> outside() {
        int qmin = Integer.MAX_VALUE, qmax = Integer.MIN_VALUE, rmin = Integer.MAX_VALUE, rmax = Integer.MIN_VALUE;
        for (long h : pasture) {
            qmin = Math.min(qmin, q(h)); qmax = Math.max(qmax, q(h));
            rmin = Math.min(rmin, r(h)); rmax = Math.max(rmax, r(h));
        }
        qmin--; qmax++; rmin--; rmax++;
        Set<Long> seen = new HashSet<>();
        ArrayDeque<Long> todo = new ArrayDeque<>();
        for (int q = qmin; q <= qmax; q++)
            for (int r = rmin; r <= rmax; r++)
                if ((q == qmin || q == qmax || r == rmin || r == rmax) && !pasture.contains(key(q, r)) && seen.add(key(q, r)))
                    todo.add(key(q, r));
        while (!todo.isEmpty()) {
            long h = todo.poll();
            for (int d = 0; d < 6; d++) {
                int nq = q(h) + DQ[d], nr = r(h) + DR[d];
                long n = key(nq, nr);
                if (nq >= qmin && nq <= qmax && nr >= rmin && nr <= rmax && !pasture.contains(n) && seen.add(n)) todo.add(n);
            }
        }
        return seen;
    }

    static String move() {
        for (long h : pasture) {
            int[] s = stacks.get(h);
            if (s == null || s[0] != me || s[1] < 2) continue;
            for (int d = 0; d < 6; d++) {
                if (empty(key(q(h) + DQ[d], r(h) + DR[d]))) return q(h) + "," + r(h) + DNAME[d] + (s[1] / 2);
            }
        }
        return "0,0E1";
    }
}
