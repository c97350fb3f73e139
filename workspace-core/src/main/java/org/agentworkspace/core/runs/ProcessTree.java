package org.agentworkspace.core.runs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds and kills every process of a run. A run's processes are: the process the engine started and its
 * descendants; on Linux also every process in the session the engine started it in ({@code setsid}), and every
 * process whose environment carries {@code AW_RUN_ID=<run id>}, which catches grandchildren that were re-parented
 * to init after their parent died, or that left the session. Zombies are ignored: they are dead and wait only for
 * their parent (or init) to reap them.
 *
 * <p>On Linux one pass over /proc finds all three kinds (parent links, session ids and, for processes started
 * since the run began, environments). Elsewhere only {@link ProcessHandle#descendants()} is available.
 * This process and its ancestors are never touched.
 */
final class ProcessTree {
    private static final System.Logger LOG = System.getLogger(ProcessTree.class.getName());
    static final String MARKER = "AW_RUN_ID";
    private static final Path PROC = Path.of("/proc");
    private static final long ROUND_MILLIS = 20;

    private final boolean proc;
    private final Set<Long> protectedPids = new HashSet<>();

    ProcessTree() {
        this.proc = Files.isReadable(PROC.resolve("self/stat"));
        for (Optional<ProcessHandle> p = Optional.of(ProcessHandle.current()); p.isPresent(); p = p.get().parent()) {
            protectedPids.add(p.get().pid());
        }
    }

    /** What identifies a run's processes. */
    record Target(ProcessHandle root, long sessionId, long rootStartTicks, String runId) {
        /** A run started as {@code process}, in its own session when {@code ownSession}. */
        static Target of(Process process, boolean ownSession, String runId) {
            Stat s = stat(process.pid());
            return new Target(process.toHandle(), ownSession ? process.pid() : -1, s == null ? 0 : s.startTicks,
                    runId);
        }
    }

    /** The live (non-zombie) processes of a run, by pid. */
    Map<Long, ProcessHandle> members(Target t) {
        Map<Long, ProcessHandle> out = new LinkedHashMap<>();
        if (!proc) {
            if (t.root().isAlive()) {
                out.put(t.root().pid(), t.root());
            }
            t.root().descendants().filter(d -> !protectedPids.contains(d.pid())).forEach(d -> out.put(d.pid(), d));
            return out;
        }
        byte[] marker = (MARKER + "=" + t.runId()).getBytes(StandardCharsets.UTF_8);
        // The kernel does not hand out a pid that is still some live process's session id, so the session stays
        // ours while anything in it lives. Once everything in it is gone the pid may be reused: if a process other
        // than our root now has that pid, the session id is no longer evidence of anything.
        boolean session = t.sessionId() > 0
                && ProcessHandle.of(t.sessionId()).map(h -> h.equals(t.root())).orElse(true);
        Map<Long, List<Long>> children = new HashMap<>();
        Set<Long> found = new HashSet<>();
        boolean rootAlive = false;
        for (long pid : pids()) {
            Stat s = stat(pid);
            if (s == null || s.dead()) {
                continue;
            }
            if (pid == t.root().pid() && (t.rootStartTicks() == 0 ? t.root().isAlive()
                    : s.startTicks == t.rootStartTicks())) {
                rootAlive = true;
            }
            children.computeIfAbsent(s.ppid, k -> new ArrayList<>()).add(pid);
            if (protectedPids.contains(pid)) {
                continue;
            }
            if ((session && s.session == t.sessionId())
                    || (s.startTicks >= t.rootStartTicks() && environHas(pid, marker))) {
                found.add(pid);
            }
        }
        if (rootAlive) {
            found.add(t.root().pid());
        }
        // descendants of everything found (the root included) by parent links
        ArrayDeque<Long> todo = new ArrayDeque<>(found);
        while (!todo.isEmpty()) {
            for (long c : children.getOrDefault(todo.poll(), List.of())) {
                if (!protectedPids.contains(c) && found.add(c)) {
                    todo.add(c);
                }
            }
        }
        for (long pid : found) {
            if (pid == t.root().pid() && rootAlive) {
                out.put(pid, t.root());
            } else {
                ProcessHandle.of(pid).ifPresent(h -> out.put(pid, h));
            }
        }
        return out;
    }

    /**
     * Ends a run's processes: SIGTERM to all of them and up to {@code grace} for them to go, then SIGKILL to whatever
     * is found, and again, until a look finds nothing or {@code deadline} passed.
     *
     * @return how many were still alive at the end (0: verified, nothing is left)
     */
    int kill(Target t, Duration grace, Duration deadline) {
        Map<Long, ProcessHandle> m = members(t);
        if (m.isEmpty()) {
            return 0;
        }
        if (!grace.isZero()) {
            oldestFirst(m).forEach(ProcessHandle::destroy);
            long graceEnd = System.nanoTime() + grace.toNanos();
            while (System.nanoTime() < graceEnd && m.values().stream().anyMatch(this::alive)) {
                pause();
            }
        }
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            oldestFirst(m).forEach(ProcessHandle::destroyForcibly);
            pause();
            m = members(t);
            if (m.isEmpty()) {
                return 0;
            }
            if (System.nanoTime() > end) {
                LOG.log(System.Logger.Level.WARNING, "run " + t.runId() + ": " + m.size()
                        + " processes survived the kill: " + m.keySet());
                return m.size();
            }
        }
    }

    /**
     * The processes in the order they started (parents before their children): a signal reaches a script before the
     * command it waits for, so a shell whose child was killed first cannot go on to its next line (it did: a run
     * stopped at its output limit sometimes ended with the script's own exit code).
     */
    private static List<ProcessHandle> oldestFirst(Map<Long, ProcessHandle> m) {
        List<ProcessHandle> l = new ArrayList<>(m.values());
        l.sort(java.util.Comparator.comparing((ProcessHandle h) -> h.info().startInstant()
                .orElse(java.time.Instant.MAX)).thenComparingLong(ProcessHandle::pid));
        return l;
    }

    /** Kills every process whose {@code AW_RUN_ID} is one of {@code runIds} (left over by an engine that died). */
    int killOrphans(Set<String> runIds, Duration deadline) {
        if (!proc || runIds.isEmpty()) {
            return 0;
        }
        long end = System.nanoTime() + deadline.toNanos();
        Set<Long> killed = new HashSet<>();
        while (true) {
            List<ProcessHandle> m = new ArrayList<>();
            for (long pid : pids()) {
                Stat s = stat(pid);
                if (s != null && !s.dead() && !protectedPids.contains(pid)
                        && environValue(pid).filter(runIds::contains).isPresent()) {
                    ProcessHandle.of(pid).ifPresent(m::add);
                }
            }
            if (m.isEmpty()) {
                return killed.size();
            }
            if (System.nanoTime() > end) {
                LOG.log(System.Logger.Level.WARNING, m.size() + " orphaned run processes survived");
                return killed.size();
            }
            m.forEach(h -> {
                killed.add(h.pid());
                h.destroyForcibly();
            });
            pause();
        }
    }

    private boolean alive(ProcessHandle h) {
        if (!h.isAlive()) {
            return false;
        }
        Stat s = proc ? stat(h.pid()) : null;
        return !proc || (s != null && !s.dead());
    }

    /** Fields of /proc/PID/stat the sweep needs. */
    record Stat(char state, long ppid, long session, long startTicks) {
        boolean dead() {
            return state == 'Z' || state == 'X';
        }
    }

    private static List<Long> pids() {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC)) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
                    out.add(Long.parseLong(name));
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot list /proc", e);
        }
        return out;
    }

    static Stat stat(long pid) {
        try {
            String s = Files.readString(PROC.resolve(pid + "/stat"), StandardCharsets.ISO_8859_1);
            int close = s.lastIndexOf(')');
            // after "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
            // cutime cstime priority nice threads itrealvalue starttime ...
            String[] f = s.substring(close + 2).split(" ");
            return new Stat(f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[3]), Long.parseLong(f[19]));
        } catch (IOException | RuntimeException e) {
            return null;
        }
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
            if (end - start > key.length
                    && java.util.Arrays.equals(env, start, start + key.length, key, 0, key.length)) {
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
