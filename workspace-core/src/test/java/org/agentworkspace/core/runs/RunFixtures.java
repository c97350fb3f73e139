package org.agentworkspace.core.runs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agentworkspace.testkit.fakecli.FakeClis;

/**
 * Test support for the run engine: the testkit's fake CLIs, small scripts of our own, a parser for the fake claude
 * stream, and an independent /proc scanner that counts what a run left behind (it shares no code with the engine,
 * so a broken kill in the engine cannot hide itself).
 */
final class RunFixtures {
    private static final Pattern DELTA = Pattern.compile("\"text_delta\",\"text\":\"(tok-\\d+) \"");
    private static final Pattern GRANDCHILD = Pattern.compile("aw-fake: grandchild pid (\\d+)");

    final Path dir;
    final Path bin;
    final Path home;
    final Path project;

    RunFixtures(Path dir) {
        this.dir = dir;
        this.bin = FakeClis.install(dir.resolve("bin"), List.of("claude"));
        this.home = mkdir(dir.resolve("home"));
        this.project = mkdir(dir.resolve("project"));
    }

    private static Path mkdir(Path p) {
        try {
            return Files.createDirectories(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A minimal child environment plus the given knobs. */
    Map<String, String> env(String... kv) {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", home.toString());
        for (int i = 0; i < kv.length; i += 2) {
            env.put(kv[i], kv[i + 1]);
        }
        return env;
    }

    /** The fake claude in headless stream-json mode. */
    ProcessSpec claude(String... kv) {
        return ProcessSpec.of(List.of(FakeClis.binary(bin, "claude").toString(), "-p", "--output-format",
                "stream-json", "--verbose", "--", "hello"), env(kv), project);
    }

    /** A POSIX sh script of our own, written to the fixture directory. */
    ProcessSpec script(String name, String body, String... kv) {
        Path file = dir.resolve(name + ".sh");
        try {
            Files.writeString(file, "#!/bin/sh\n" + body + "\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // run through /bin/sh rather than exec'ing the file: a script written while another thread forks can fail
        // to exec with ETXTBSY (exit 126) because the child briefly holds the writer's descriptor
        return ProcessSpec.of(List.of("/bin/sh", file.toString()), env(kv), project);
    }

    /** Unified events from the fake claude stream: one {"kind":"delta"} per text delta, one "complete" at the end. */
    static LineParser claudeParser() {
        return new LineParser() {
            @Override
            public List<String> parse(String line) {
                Matcher m = DELTA.matcher(line);
                return m.find() ? List.of("{\"kind\":\"delta\",\"text\":\"" + m.group(1) + "\"}") : List.of();
            }

            @Override
            public List<String> finish(int exitCode) {
                return List.of("{\"kind\":\"complete\",\"exitCode\":" + exitCode + "}");
            }
        };
    }

    static RunRequest request(ProcessSpec spec) {
        return RunRequest.of("claude", spec, claudeParser());
    }

    /** Every entry of a run, read by a fresh cursor from 0 to the end. */
    static List<RunEntry> all(RunEngine engine, String runId) throws InterruptedException {
        List<RunEntry> out = new ArrayList<>();
        try (RunCursor c = engine.follow(runId, 0)) {
            while (true) {
                var e = c.poll(Duration.ofSeconds(20));
                if (e.isEmpty()) {
                    if (!c.finished()) {
                        throw new AssertionError("the cursor stalled for 20 s at seq " + c.lastSeq());
                    }
                    return out;
                }
                out.add(e.get());
            }
        }
    }

    /** Grandchild pids the fake reported on stderr. */
    static List<Long> grandchildPids(List<RunEntry> entries) {
        List<Long> pids = new ArrayList<>();
        for (RunEntry e : entries) {
            if (e.kind() == EntryKind.STDERR) {
                Matcher m = GRANDCHILD.matcher(e.payload());
                if (m.find()) {
                    pids.add(Long.parseLong(m.group(1)));
                }
            }
        }
        return pids;
    }

    /**
     * Live (non-zombie) processes whose environment carries {@code AW_RUN_ID=} one of {@code runIds}, plus any of
     * {@code pids} still alive and not a zombie: the independent count of what runs left behind.
     */
    static Set<Long> leftovers(Set<String> runIds, List<Long> pids) {
        Set<Long> out = new TreeSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long pid = Long.parseLong(name);
                if (pid == ProcessHandle.current().pid() || !alive(pid)) {
                    continue;
                }
                byte[] env;
                try {
                    env = Files.readAllBytes(p.resolve("environ"));
                } catch (IOException e) {
                    continue;
                }
                for (String entry : new String(env, StandardCharsets.ISO_8859_1).split("\0")) {
                    if (entry.startsWith("AW_RUN_ID=") && runIds.contains(entry.substring("AW_RUN_ID=".length()))) {
                        out.add(pid);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (long pid : pids) {
            if (alive(pid)) {
                out.add(pid);
            }
        }
        // descendants of this JVM started by the runs (setsid keeps them children until they die)
        ProcessHandle.current().descendants().filter(h -> alive(h.pid())).forEach(h -> {
            String cmd = h.info().commandLine().orElse("");
            if (cmd.contains("aw-fake") || cmd.contains("/bin/claude") || cmd.contains(".sh")) {
                out.add(h.pid());
            }
        });
        return out;
    }

    /** Alive and not a zombie, by /proc/PID/stat. */
    static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.ISO_8859_1);
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static String stat(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "";
        }
    }
}
