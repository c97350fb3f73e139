package org.agentworkspace.git;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code git} command, used as the reference the tests compare against. Argv only, a fixed environment
 * (own HOME, no system config, C locale), and {@code core.fsmonitor}/{@code core.hooksPath} switched off so that
 * verifying a booby-trapped repository can never trip the trap itself.
 */
final class GitCli {
    private final Path home;

    GitCli(Path home) {
        this.home = home;
    }

    record Result(int exit, byte[] stdout, String stderr) {
        String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }
    }

    /** Runs {@code git -C dir args...}; fails the test unless it exits 0. */
    String out(Path dir, String... args) {
        Result r = run(dir, args);
        if (r.exit() != 0) {
            throw new AssertionError("git " + String.join(" ", args) + " exited " + r.exit() + ": " + r.stderr());
        }
        return r.out();
    }

    Result run(Path dir, String... args) {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "core.fsmonitor=false", "-c",
                "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never", "-c", "user.name=Ref Tester", "-c",
                "user.email=ref@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false", "-c",
                "advice.detachedHead=false", "-C", dir.toString()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv);
        Map<String, String> env = pb.environment();
        String path = env.get("PATH");
        env.clear();
        env.put("PATH", path == null ? "/usr/bin:/bin" : path);
        env.put("HOME", home.toString());
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("LC_ALL", "C");
        env.put("TZ", "UTC");
        try {
            Files.createDirectories(home);
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
            byte[] out = readAll(p.getInputStream());
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("git timed out: " + argv);
            }
            return new Result(p.exitValue(), out, new String(err.join(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
