import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.DiffResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.api.vcs.VcsStatus;

/**
 * Times the JGit-backed status and whole-tree diff against the git command on one generated repository.
 * Usage (see run.sh): java -cp <workspace-git + deps> bench/git/GitBench.java [files] [changed] [runs]
 * Not part of the test run. Prints one table; numbers are medians of the timed runs after one warm-up each.
 */
public class GitBench {
    public static void main(String[] args) throws Exception {
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        int changed = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path base = Files.createTempDirectory("aw-git-bench");
        Path repo = base.resolve("repo");
        try {
            long t0 = System.nanoTime();
            generate(repo, files);
            git(base, repo, "init", "-q", "-b", "main");
            git(base, repo, "add", "-A");
            git(base, repo, "commit", "-q", "-m", "generated");
            int every = Math.max(1, files / changed);
            int modified = 0;
            for (int i = 0; i < files && modified < changed; i += every) {
                Path f = fileFor(repo, i);
                Files.writeString(f, Files.readString(f).replace("line 3 of", "LINE THREE of") + "appended\n");
                modified++;
            }
            System.out.printf("repository: %d files, %d changed, built in %.1f s (%s)%n", files, modified,
                    (System.nanoTime() - t0) / 1e9, repo);

            VcsFactory factory = ServiceLoader.load(VcsFactory.class).findFirst().orElseThrow();
            VcsOptions options = VcsOptions.defaults().withMaxDiffBytes(1L << 30);

            String[] gitStatus = {"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"};
            String[] gitDiff = {"diff", "--no-renames", "--no-color", "--no-ext-diff", "--abbrev=7"};

            long coldStatus = time(() -> {
                try (Vcs vcs = factory.open(repo, options)) {
                    return vcs.status();
                }
            });
            long coldDiff = time(() -> {
                try (Vcs vcs = factory.open(repo, options)) {
                    return vcs.diff(DiffRequest.wholeTree(false));
                }
            });
            // Sanity: both sides see the same thing.
            VcsStatus status;
            DiffResult diff;
            try (Vcs vcs = factory.open(repo, options)) {
                status = vcs.status();
                diff = vcs.diff(DiffRequest.wholeTree(false));
            }
            String gitDiffText = git(base, repo, gitDiff);
            if (!diff.diff().equals(gitDiffText)) {
                Files.writeString(base.getParent().resolve("aw-git-bench-ours.diff"), diff.diff());
                Files.writeString(base.getParent().resolve("aw-git-bench-git.diff"), gitDiffText);
            }
            if (status.modified().size() != modified || !diff.diff().equals(gitDiffText) || diff.truncated()) {
                throw new IllegalStateException("outputs differ from git: modified=" + status.modified().size()
                        + " diffEqual=" + diff.diff().equals(gitDiffText));
            }

            long ourStatus = median(runs, () -> {
                try (Vcs vcs = factory.open(repo, options)) {
                    return vcs.status();
                }
            });
            long theirStatus = median(runs, () -> git(base, repo, gitStatus));
            long ourDiff = median(runs, () -> {
                try (Vcs vcs = factory.open(repo, options)) {
                    return vcs.diff(DiffRequest.wholeTree(false));
                }
            });
            long theirDiff = median(runs, () -> git(base, repo, gitDiff));

            System.out.printf("diff size: %d bytes%n", gitDiffText.getBytes(StandardCharsets.UTF_8).length);
            System.out.printf("%-22s %10s %10s %8s %14s%n", "operation", "ours ms", "git ms", "ratio", "ours cold ms");
            System.out.printf("%-22s %10.0f %10.0f %8.2f %14.0f%n", "status", ourStatus / 1e6, theirStatus / 1e6,
                    (double) ourStatus / theirStatus, coldStatus / 1e6);
            System.out.printf("%-22s %10.0f %10.0f %8.2f %14.0f%n", "diff (whole tree)", ourDiff / 1e6,
                    theirDiff / 1e6, (double) ourDiff / theirDiff, coldDiff / 1e6);
        } finally {
            try (Stream<Path> all = Files.walk(base)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static Path fileFor(Path repo, int i) {
        return repo.resolve("d" + (i / 1000)).resolve("s" + ((i / 100) % 10)).resolve("f" + i + ".txt");
    }

    private static void generate(Path repo, int files) throws IOException {
        for (int i = 0; i < files; i++) {
            Path f = fileFor(repo, i);
            Files.createDirectories(f.getParent());
            StringBuilder text = new StringBuilder();
            for (int line = 0; line < 12; line++) {
                text.append("line ").append(line).append(" of file ").append(i).append('\n');
            }
            Files.writeString(f, text);
        }
    }

    private static long time(Supplier<?> action) {
        long start = System.nanoTime();
        action.get();
        return System.nanoTime() - start;
    }

    private static long median(int runs, Supplier<?> action) {
        action.get();
        long[] times = new long[runs];
        for (int i = 0; i < runs; i++) {
            times[i] = time(action);
        }
        Arrays.sort(times);
        return times[runs / 2];
    }

    private static String git(Path home, Path repo, String... args) {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "core.fsmonitor=false", "-c",
                "core.hooksPath=/dev/null", "-c", "user.name=Bench", "-c", "user.email=bench@example.com",
                "-C", repo.toString()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().put("HOME", home.toString());
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("LC_ALL", "C");
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
            byte[] out = readAll(p.getInputStream());
            if (p.waitFor() != 0) {
                throw new IllegalStateException("git " + String.join(" ", args) + ": "
                        + new String(err.join(), StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
