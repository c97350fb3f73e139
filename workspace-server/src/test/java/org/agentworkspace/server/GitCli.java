package org.agentworkspace.server;

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
 * The real {@code git} command, the reference HTTP-level git tests compare against. Argv only, a fixed environment
 * (own HOME, no system config, C locale), hooks and fsmonitor off.
 */
public final class GitCli {
    private final Path home;

    public GitCli(Path home) {
        this.home = home;
    }

    public record Result(int exit, String out, String err) {
    }

    /** {@code git -C dir args...}; fails the test unless it exits 0. */
    public String out(Path dir, String... args) {
        Result r = run(dir, args);
        if (r.exit() != 0) {
            throw new AssertionError("git " + String.join(" ", args) + " exited " + r.exit() + ": " + r.err());
        }
        return r.out();
    }

    public Result run(Path dir, String... args) {
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
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                    new String(err.join(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** {@code git init -b main} plus one commit of the given files (name, content pairs). */
    public Path repo(Path dir, String... files) {
        out(dir.getParent(), "init", "-q", "-b", "main", dir.toString());
        if (files.length > 0) {
            for (int i = 0; i < files.length; i += 2) {
                write(dir, files[i], files[i + 1]);
            }
            out(dir, "add", "-A");
            out(dir, "commit", "-q", "-m", "initial");
        }
        return dir;
    }

    /** A bare remote {@code origin} for {@code repo} at {@code remote}, with {@code main} pushed and tracked. */
    public Path bareRemote(Path repo, Path remote) {
        out(remote.getParent(), "init", "-q", "--bare", "-b", "main", remote.toString());
        out(repo, "remote", "add", "origin", remote.toString());
        out(repo, "push", "-q", "-u", "origin", "main");
        return remote;
    }

    public static void write(Path dir, String name, String content) {
        try {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lines of output, without blank ones. */
    public static List<String> lines(String out) {
        return out.isBlank() ? List.of() : List.of(out.strip().split("\n"));
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
