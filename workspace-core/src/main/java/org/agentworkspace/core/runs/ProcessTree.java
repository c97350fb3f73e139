package org.agentworkspace.core.runs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Finds and kills every process of a run. A run's processes are: the process the engine started and its
 * descendants ({@link ProcessHandle#descendants()}); on Linux also every process in the session the engine started
 * it in ({@code setsid}), and every process whose environment carries {@code AW_RUN_ID=<run id>}, which catches
 * grandchildren that were re-parented to init after their parent died, or that left the session. Zombies are
 * ignored: they are dead and wait only for their parent (or init) to reap them.
 *
 * <p>This process and its ancestors are never touched.
 */
final class ProcessTree {
    private static final System.Logger LOG = System.getLogger(ProcessTree.class.getName());
    static final String MARKER = "AW_RUN_ID";
    private static final Path PROC = Path.of("/proc");
    private static final long ROUND_MILLIS = 10;

    private final boolean proc;
    private final Set<Long> protectedPids = new HashSet<>();

    ProcessTree() {
        this.proc = Files.isReadable(PROC.resolve("self/stat"));
        ProcessHandle self = ProcessHandle.current();
        for (Optional<ProcessHandle> p = Optional.of(self); p.isPresent(); p = p.get().parent()) {
            protectedPids.add(p.get().pid());
        }
    }

    /** Whether /proc can be swept (Linux); without it only descendants are found. */
    boolean procAvailable() {
        return proc;
    }

    /** The live (non-zombie) processes of a run, by pid. */
    Map<Long, ProcessHandle> members(ProcessHandle root, long sessionId, String runId) {
        byte[] marker = (MARKER + "=" + runId).getBytes(StandardCharsets.UTF_8);
        Map<Long, ProcessHandle> out = new LinkedHashMap<>();
        if (root != null) {
            if (root.isAlive() && !zombie(root.pid())) {
                out.put(root.pid(), root);
            }
            root.descendants().forEach(d -> {
                if (!protectedPids.contains(d.pid()) && !zombie(d.pid())) {
                    out.put(d.pid(), d);
                }
            });
        }
        if (proc) {
            sweep(pid -> !out.containsKey(pid), (pid, stat) -> (sessionId > 0 && stat.session == sessionId)
                    || environHas(pid, marker), out);
        }
        return out;
    }

    /**
     * Ends a run's processes: SIGTERM to all of them and up to {@code grace} for them to go, then SIGKILL rounds
     * until none is found or {@code deadline} passed.
     *
     * @return how many were still alive at the end (0: verified, nothing is left)
     */
    int kill(ProcessHandle root, long sessionId, String runId, Duration grace, Duration deadline) {
        long start = System.nanoTime();
        if (!grace.isZero()) {
            Map<Long, ProcessHandle> m = members(root, sessionId, runId);
            m.values().forEach(ProcessHandle::destroy);
            long graceEnd = start + grace.toNanos();
            while (!m.isEmpty() && System.nanoTime() < graceEnd) {
                pause();
                m = members(root, sessionId, runId);
            }
            if (m.isEmpty()) {
                return 0;
            }
        }
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            Map<Long, ProcessHandle> m = members(root, sessionId, runId);
            if (m.isEmpty()) {
                return 0;
            }
            if (System.nanoTime() > end) {
                LOG.log(System.Logger.Level.WARNING, "run " + runId + ": " + m.size()
                        + " processes survived the kill: " + m.keySet());
                return m.size();
            }
            m.values().forEach(ProcessHandle::destroyForcibly);
            pause();
        }
    }

    /** Kills every process whose {@code AW_RUN_ID} is one of {@code runIds} (left over by an engine that died). */
    int killOrphans(Set<String> runIds, Duration deadline) {
        if (!proc || runIds.isEmpty()) {
            return 0;
        }
        long end = System.nanoTime() + deadline.toNanos();
        int killed = 0;
        while (true) {
            Map<Long, ProcessHandle> m = new LinkedHashMap<>();
            sweep(pid -> true, (pid, stat) -> environValue(pid).filter(runIds::contains).isPresent(), m);
            if (m.isEmpty()) {
                return killed;
            }
            if (System.nanoTime() > end) {
                LOG.log(System.Logger.Level.WARNING, m.size() + " orphaned run processes survived: " + m.keySet());
                return killed;
            }
            killed += m.size();
            m.values().forEach(ProcessHandle::destroyForcibly);
            pause();
        }
    }

    /** Fields of /proc/PID/stat the sweep needs. */
    record Stat(char state, long session) {
    }

    interface Match {
        boolean test(long pid, Stat stat);
    }

    private void sweep(Predicate<Long> consider, Match match, Map<Long, ProcessHandle> out) {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC)) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(name);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (protectedPids.contains(pid) || !consider.test(pid)) {
                    continue;
                }
                Stat stat = stat(pid);
                if (stat == null || stat.state == 'Z' || stat.state == 'X') {
                    continue;
                }
                if (match.test(pid, stat)) {
                    ProcessHandle.of(pid).ifPresent(h -> out.put(pid, h));
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot list /proc", e);
        }
    }

    static Stat stat(long pid) {
        try {
            String s = Files.readString(PROC.resolve(pid + "/stat"), StandardCharsets.ISO_8859_1);
            int close = s.lastIndexOf(')');
            if (close < 0 || close + 2 >= s.length()) {
                return null;
            }
            String[] f = s.substring(close + 2).split(" ");
            // after "pid (comm) ": state ppid pgrp session ...
            return new Stat(f[0].charAt(0), Long.parseLong(f[3]));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private boolean zombie(long pid) {
        if (!proc) {
            return false;
        }
        Stat s = stat(pid);
        return s == null || s.state == 'Z' || s.state == 'X';
    }

    private static boolean environHas(long pid, byte[] entry) {
        byte[] env = environ(pid);
        outer:
        for (int i = 0; i + entry.length <= env.length; i++) {
            if (i > 0 && env[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < entry.length; j++) {
                if (env[i + j] != entry[j]) {
                    continue outer;
                }
            }
            if (i + entry.length == env.length || env[i + entry.length] == 0) {
                return true;
            }
        }
        return false;
    }

    private static Optional<String> environValue(long pid) {
        byte[] env = environ(pid);
        byte[] key = (MARKER + "=").getBytes(StandardCharsets.US_ASCII);
        int start = 0;
        while (start < env.length) {
            int end = start;
            while (end < env.length && env[end] != 0) {
                end++;
            }
            if (end - start > key.length && java.util.Arrays.equals(env, start, start + key.length, key, 0, key.length)) {
                return Optional.of(new String(env, start + key.length, end - start - key.length,
                        StandardCharsets.UTF_8));
            }
            start = end + 1;
        }
        return Optional.empty();
    }

    private static byte[] environ(long pid) {
        try {
            return Files.readAllBytes(PROC.resolve(pid + "/environ"));
        } catch (IOException | RuntimeException e) {
            return new byte[0];
        }
    }

    private static void pause() {
        try {
            Thread.sleep(ROUND_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
