package org.agentworkspace.git;

import org.agentworkspace.testkit.git.GitCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.agentworkspace.api.vcs.CommitIdentity;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsOptions;

/** Real repositories in a temporary directory: a working tree, a bare remote, and the reference git. */
final class Fixture {
    static final CommitIdentity AUTHOR = new CommitIdentity("Api Author", "api@example.com");

    final Path base;
    final GitCli git;
    final JGitVcsFactory factory = new JGitVcsFactory();

    Fixture(Path base) {
        this.base = base;
        this.git = new GitCli(base.resolve("home"));
    }

    /** {@code git init} plus one commit holding the given files (name, content pairs). */
    Path repo(String name, String... files) {
        Path dir = base.resolve(name);
        git.out(base, "init", "-q", "-b", "main", dir.toString());
        if (files.length > 0) {
            for (int i = 0; i < files.length; i += 2) {
                write(dir, files[i], files[i + 1]);
            }
            git.out(dir, "add", "-A");
            git.out(dir, "commit", "-q", "-m", "initial");
        }
        return dir;
    }

    /** A bare remote {@code origin} for {@code repo}, with {@code main} pushed and tracked. */
    Path bareRemote(Path repo, String name) {
        Path remote = base.resolve(name);
        git.out(base, "init", "-q", "--bare", "-b", "main", remote.toString());
        git.out(repo, "remote", "add", "origin", remote.toString());
        git.out(repo, "push", "-q", "-u", "origin", "main");
        return remote;
    }

    /** A second clone of {@code remote}, playing another developer. */
    Path clone(Path remote, String name) {
        Path dir = base.resolve(name);
        git.out(base, "clone", "-q", remote.toString(), dir.toString());
        return dir;
    }

    Vcs open(Path dir) {
        return factory.open(dir);
    }

    Vcs open(Path dir, VcsOptions options) {
        return factory.open(dir, options);
    }

    static void write(Path dir, String name, String content) {
        write(dir, name, content.getBytes(StandardCharsets.UTF_8));
    }

    static void write(Path dir, String name, byte[] content) {
        try {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            Files.write(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Entries of NUL-separated output, without the empty tail. */
    static List<String> nulSplit(String out) {
        List<String> parts = new ArrayList<>(List.of(out.split("\0", -1)));
        while (!parts.isEmpty() && parts.getLast().isEmpty()) {
            parts.removeLast();
        }
        return parts;
    }

    static List<String> lines(String out) {
        return out.isBlank() ? List.of() : List.of(out.strip().split("\n"));
    }

    static String sha256(Path file) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
