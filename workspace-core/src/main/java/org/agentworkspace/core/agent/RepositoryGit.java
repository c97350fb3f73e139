package org.agentworkspace.core.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.eclipse.jgit.api.CreateBranchCommand;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;

/**
 * The JGit side of {@link Repositories}: clone, commit, push. Kept apart so that {@link Repositories}, built when
 * the server starts, names no JGit type: JGit is a signed jar, whose classes the JVM checks against the signature as
 * it loads them (and which a start-up cache skips), and this class loads only with the first clone or publish.
 * Failures of JGit's commands come out as {@link IOException}s whose {@link #cause} is JGit's own exception.
 */
final class RepositoryGit {
    private RepositoryGit() {
    }

    /** A JGit command failed; the cause is its {@link GitAPIException}. */
    private static final class CommandFailed extends IOException {
        CommandFailed(GitAPIException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** JGit's exception behind a failure of this class, or {@code e} itself. */
    static Throwable cause(Throwable e) {
        return e instanceof CommandFailed && e.getCause() != null ? e.getCause() : e;
    }

    private static CredentialsProvider credentials(Optional<String> token) {
        return token.map(t -> (CredentialsProvider) new UsernamePasswordCredentialsProvider("x-access-token", t))
                .orElse(CredentialsProvider.getDefault());
    }

    /**
     * Initialises {@code dir} (existing and empty), configures {@code origin} as {@code url} without credentials and
     * with {@code http.followRedirects=false}, fetches it and checks out the remote's default branch.
     */
    static void cloneInto(Path dir, String url, Optional<String> token) throws IOException {
        try (Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call()) {
            StoredConfig config = git.getRepository().getConfig();
            config.setString("remote", "origin", "url", url);
            config.setString("remote", "origin", "fetch", "+refs/heads/*:refs/remotes/origin/*");
            config.setBoolean("http", null, "followRedirects", false);
            config.save();
            FetchResult fetched = git.fetch().setRemote("origin").setCredentialsProvider(credentials(token))
                    .setRefSpecs(new RefSpec("+refs/heads/*:refs/remotes/origin/*")).setTimeout(120).call();
            Ref head = fetched.getAdvertisedRef(Constants.HEAD);
            String branch = head != null && head.isSymbolic() ? shortName(head.getTarget().getName()) : "main";
            git.checkout().setCreateBranch(true).setName(branch).setStartPoint("origin/" + branch)
                    .setUpstreamMode(CreateBranchCommand.SetupUpstreamMode.TRACK).call();
        } catch (GitAPIException e) {
            throw new CommandFailed(e);
        }
    }

    private static String shortName(String ref) {
        return ref.startsWith("refs/heads/") ? ref.substring("refs/heads/".length()) : ref;
    }

    /**
     * Checks out {@code branch} (created when missing) and commits everything left uncommitted with {@code subject}.
     *
     * @return the branch checked out before
     */
    static String commitOnBranch(Path project, String branch, String subject) throws IOException {
        try (Git git = Git.open(project.toFile())) {
            String base = git.getRepository().getBranch();
            boolean exists = git.getRepository().findRef(Constants.R_HEADS + branch) != null;
            git.checkout().setName(branch).setCreateBranch(!exists).call();
            if (!git.status().call().isClean()) {
                git.add().addFilepattern(".").call();
                git.add().addFilepattern(".").setUpdate(true).call();
                git.commit().setMessage(subject).setAuthor("Agent Workspace", "agent@localhost")
                        .setCommitter("Agent Workspace", "agent@localhost").setSign(false).call();
            }
            return base;
        } catch (GitAPIException e) {
            throw new CommandFailed(e);
        }
    }

    /** The configured URL of {@code origin} (null when there is none). */
    static String originUrl(Path project) throws IOException {
        try (Git git = Git.open(project.toFile())) {
            return git.getRepository().getConfig().getString("remote", "origin", "url");
        }
    }

    /** Pushes {@code branch} to the same branch of {@code origin} with the token. */
    static void push(Path project, String branch, String token) throws IOException {
        try (Git git = Git.open(project.toFile())) {
            git.push().setRemote("origin").setCredentialsProvider(credentials(Optional.of(token)))
                    .setRefSpecs(new RefSpec(Constants.R_HEADS + branch + ":" + Constants.R_HEADS + branch))
                    .setTimeout(120).call();
        } catch (GitAPIException e) {
            throw new CommandFailed(e);
        }
    }

    /** The subjects of the newest {@code max} commits of the checked-out branch, newest first. */
    static List<String> recentSubjects(Path project, int max) throws IOException {
        try (Git git = Git.open(project.toFile())) {
            List<String> out = new ArrayList<>();
            for (RevCommit c : git.log().setMaxCount(max).call()) {
                out.add(c.getShortMessage());
            }
            return out;
        } catch (GitAPIException e) {
            throw new CommandFailed(e);
        }
    }
}
