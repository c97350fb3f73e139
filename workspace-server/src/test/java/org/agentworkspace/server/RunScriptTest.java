package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/run.sh} as a supervisor, run for real by bash in a copy of the repository's layout with a fake JDK
 * (its {@code java} a script that logs its start and exits with the next status of a list) and a fake
 * {@code ./mvnw}: exit 42 starts the server again, rebuilding first when a source became newer than the jar; any
 * other status ends the script with it.
 */
class RunScriptTest {
    @TempDir
    Path tmp;

    private Path repo;
    private Path log;

    /** A repository copy whose fake java exits with {@code statuses} in turn; {@code touchOnFirst}: a "git pull". */
    private void layout(List<Integer> statuses, boolean touchOnFirst) throws IOException {
        layout(statuses, touchOnFirst, true);
    }

    private void layout(List<Integer> statuses, boolean touchOnFirst, boolean buildWorks) throws IOException {
        repo = tmp.resolve("repo");
        log = tmp.resolve("log");
        Path scripts = Files.createDirectories(repo.resolve("scripts"));
        for (String name : List.of("run.sh", "jdk.sh", "jvm-opts.sh")) {
            Files.copy(Path.of("..", "scripts", name), scripts.resolve(name));
        }
        Path src = Files.createDirectories(repo.resolve("workspace-server/src/main/java"));
        Files.writeString(src.resolve("A.java"), "class A {}");
        Files.writeString(repo.resolve("pom.xml"), "<project/>");
        Path target = Files.createDirectories(repo.resolve("workspace-server/target/libs"));
        Files.writeString(target.resolve("../workspace-server.jar"), "jar");
        Instant old = Instant.now().minusSeconds(3600);
        for (Path p : List.of(src.resolve("A.java"), repo.resolve("pom.xml"))) {
            Files.setLastModifiedTime(p, FileTime.from(old));
        }
        Path jdk = Files.createDirectories(tmp.resolve("jdk/bin"));
        Files.writeString(tmp.resolve("jdk/release"), "JAVA_VERSION=\"25.0.1\"\n");
        executable(jdk.resolve("javac"), "#!/bin/sh\nexit 0\n");
        StringBuilder codes = new StringBuilder();
        statuses.forEach(c -> codes.append(c).append('\n'));
        Files.writeString(tmp.resolve("codes"), codes);
        executable(jdk.resolve("java"), """
                #!/bin/bash
                echo "java $*" >> "%1$s"
                code=$(head -n1 "%2$s"); sed -i 1d "%2$s"
                if [ "%3$s" = true ] && [ ! -f "%4$s.done" ]; then touch "%4$s.done"; sleep 1; touch "%4$s"; fi
                exit "$code"
                """.formatted(log, tmp.resolve("codes"), touchOnFirst,
                repo.resolve("workspace-server/src/main/java/A.java")));
        executable(repo.resolve("mvnw"), buildWorks ? """
                #!/bin/bash
                echo "mvnw $*" >> "%s"
                touch workspace-server/target/workspace-server.jar
                """.formatted(log) : """
                #!/bin/bash
                echo "mvnw $*" >> "%s"
                echo "compilation failed" >&2
                exit 1
                """.formatted(log));
    }

    private static void executable(Path p, String content) throws IOException {
        Files.writeString(p, content);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private int run(String... args) throws Exception {
        return runWith("-Xmx64m", args);
    }

    /** Runs run.sh; {@code javaOpts} null leaves AW_JAVA_OPTS unset (the flags of scripts/jvm-opts.sh apply). */
    private int runWith(String javaOpts, String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("bash", repo.resolve("scripts/run.sh").toString()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("out").toFile());
        pb.environment().put("JAVA_HOME", tmp.resolve("jdk").toString());
        if (javaOpts != null) {
            pb.environment().put("AW_JAVA_OPTS", javaOpts);
        } else {
            pb.environment().remove("AW_JAVA_OPTS");
        }
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "run.sh did not end");
        return p.exitValue();
    }

    @Test
    void exit42StartsTheServerAgainWithTheSameOptionsAndAnyOtherStatusEndsTheScript() throws Exception {
        layout(List.of(42, 42, 5), false);
        assertEquals(5, run("--port", "3999"), Files.readString(tmp.resolve("out")));
        List<String> starts = Files.readAllLines(log);
        assertEquals(3, starts.size(), starts.toString());
        for (String s : starts) {
            assertEquals("java -Xmx64m -jar workspace-server/target/workspace-server.jar --port 3999", s);
        }
        assertTrue(Files.readString(tmp.resolve("out")).contains("restart requested"));
    }

    @Test
    void aCrashedServerIsStartedAgainWithABackOffAndRunsWithTheExitOnOutOfMemoryFlag() throws Exception {
        // 3: the JVM ran out of memory (-XX:+ExitOnOutOfMemoryError); 70: a vital thread died; then a normal stop
        layout(List.of(3, 70, 0), false);
        long t0 = System.nanoTime();
        assertEquals(0, runWith(null, "--port", "3999"), Files.readString(tmp.resolve("out")));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        List<String> starts = Files.readAllLines(log);
        assertEquals(3, starts.size(), starts.toString());
        for (String st : starts) {
            assertTrue(st.contains(" -Xmx96m ") && st.contains(" -XX:+ExitOnOutOfMemoryError "), st);
            assertTrue(st.endsWith("-jar workspace-server/target/workspace-server.jar --port 3999"), st);
        }
        String out = Files.readString(tmp.resolve("out"));
        assertTrue(out.contains("crashed (exit 3); starting it again in 1 s"), out);
        assertTrue(out.contains("crashed (exit 70); starting it again in 2 s"), out);
        assertTrue(seconds >= 3, "the back-off waited 1 s, then 2 s: " + seconds);
    }

    @Test
    void aNormalExitEndsTheScriptAtOnce() throws Exception {
        layout(List.of(0, 0), false);
        assertEquals(0, run());
        assertEquals(1, Files.readAllLines(log).size());
    }

    @Test
    void sourcesChangedBeforeARestartAreRebuiltFirst() throws Exception {
        layout(List.of(42, 0), true);
        assertEquals(0, run(), Files.readString(tmp.resolve("out")));
        List<String> lines = Files.readAllLines(log);
        assertEquals(3, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("java "), lines.toString());
        assertEquals("mvnw -q -B -DskipTests -pl workspace-server -am package", lines.get(1));
        assertTrue(lines.get(2).startsWith("java "), lines.toString());
    }

    @Test
    void aFailedRebuildAfterARestartStartsThePreviousBuildAgain() throws Exception {
        layout(List.of(42, 5), true, false);
        assertEquals(5, run(), Files.readString(tmp.resolve("out")));
        List<String> lines = Files.readAllLines(log);
        assertEquals(3, lines.size(), lines.toString());
        assertTrue(lines.get(1).startsWith("mvnw "), lines.toString());
        assertTrue(lines.get(2).startsWith("java "), lines.toString());
        assertTrue(Files.readString(tmp.resolve("out")).contains("the rebuild failed; starting the previous build"));
    }
}
