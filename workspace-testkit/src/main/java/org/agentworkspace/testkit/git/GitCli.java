package org.agentworkspace.testkit.git;

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

import org.junit.jupiter.api.Assumptions;

/**
 * The real {@code git} command of this host, the reference that git tests compare against and the tool that contract
 * tests prepare repositories with. Argv only; a fixed environment (its own HOME, no system configuration, C locale,
 * UTC); {@code core.fsmonitor} and {@code core.hooksPath} switched off and {@code ext::} transports refused, so that
 * inspecting a booby-trapped repository can never trip the trap itself.
 */
public final class GitCli {
    private final Path home;
    private final String userName;
    private final String userEmail;

    /** A git whose configuration HOME is {@code home} (created on first use), committing as "Ref Tester". */
    public GitCli(Path home) {
        this(home, "Ref Tester", "ref@example.com");
    }

    /** A git whose configuration HOME is {@code home}, committing as {@code userName <userEmail>}. */
    public GitCli(Path home, String userName, String userEmail) {
        this.home = home;
        this.userName = userName;
        this.userEmail = userEmail;
    }

    /** What one git invocation did: its exit status, raw standard output and standard error. */
    public record Result(int exit, byte[] stdout, String stderr) {
        /** Standard output as UTF-8 text. */
        public String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        /** Standard error (same as {@link #stderr()}). */
        public String err() {
            return stderr;
        }
    }

    /** Skips the calling test when no {@code git} command runs here. */
    public static void assumeAvailable() {
        boolean ok;
        try {
            Process p = new ProcessBuilder("git", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            ok = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            ok = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ok = false;
        }
        Assumptions.assumeTrue(ok, "the git command is not available on this host; skipped");
    }

    /** Runs {@code git -C dir args...}; fails the test unless it exits 0. */
    public String out(Path dir, String... args) {
        Result r = run(dir, args);
        if (r.exit() != 0) {
            throw new AssertionError("git " + String.join(" ", args) + " exited " + r.exit() + ": " + r.stderr());
        }
        return r.out();
    }

    /** Runs {@code git -C dir args...} whatever its exit status. */
    public Result run(Path dir, String... args) {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "core.fsmonitor=false", "-c",
                "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never", "-c", "user.name=" + userName, "-c",
                "user.email=" + userEmail, "-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false", "-c",
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

    /** {@code git init -b main} at {@code dir} plus one commit of the given files (name, content pairs). */
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

    /** Writes {@code content} to {@code dir/name}, creating parent folders. */
    public static void write(Path dir, String name, String content) {
        try {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lines of {@code out}, none when it is blank. */
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
