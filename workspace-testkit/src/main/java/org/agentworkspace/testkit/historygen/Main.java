package org.agentworkspace.testkit.historygen;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Command line of the history generator:
 * {@code java -cp workspace-testkit-<v>-runner.jar org.agentworkspace.testkit.historygen.Main --out DIR
 * [--projects 100] [--sessions 10000] [--target-bytes 2g] [--seed 42] [--threads N]}. Prints the totals and the
 * manifest path; exits 2 on a bad command line.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        Path out = null;
        int projects = 100;
        int sessions = 10_000;
        long target = parseSize("2g");
        long seed = 42;
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        try {
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--out" -> out = Path.of(need(v, args[i]));
                    case "--projects" -> projects = Integer.parseInt(need(v, args[i]));
                    case "--sessions" -> sessions = Integer.parseInt(need(v, args[i]));
                    case "--target-bytes" -> target = parseSize(need(v, args[i]));
                    case "--seed" -> seed = Long.parseLong(need(v, args[i]));
                    case "--threads" -> threads = Integer.parseInt(need(v, args[i]));
                    case "--version" -> {
                        System.out.println(HistoryGenerator.VERSION);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
                i++;
            }
            if (out == null) {
                throw new IllegalArgumentException("--out DIR is required");
            }
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: Main --out DIR [--projects 100] [--sessions 10000] [--target-bytes 2g] "
                    + "[--seed 42] [--threads N] | --version");
            System.exit(2);
            return;
        }
        long t0 = System.nanoTime();
        HistoryGenerator.Result r = HistoryGenerator.generate(
                new HistoryGenerator.Options(out, projects, sessions, target, seed, threads));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf(Locale.ROOT, "generated %d sessions %s in %d projects: %,d lines, %,d bytes in %.1f s%n",
                r.sessions().size(), r.sessionsByProvider(), r.projects(), r.lines(), r.bytes(), ms / 1000.0);
        System.out.println("manifest: " + r.manifest());
    }

    private static String need(String v, String opt) {
        if (v == null) {
            throw new IllegalArgumentException(opt + " needs a value");
        }
        return v;
    }

    static long parseSize(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        long mult = 1;
        char last = t.charAt(t.length() - 1);
        if (last == 'k' || last == 'm' || last == 'g') {
            mult = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
            t = t.substring(0, t.length() - 1);
        }
        return (long) (Double.parseDouble(t) * mult);
    }
}
