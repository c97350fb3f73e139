package org.agentworkspace.server.routes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.api.vcs.CheckoutResult;
import org.agentworkspace.api.vcs.CommitIdentity;
import org.agentworkspace.api.vcs.CommitLog;
import org.agentworkspace.api.vcs.CommitRequest;
import org.agentworkspace.api.vcs.CommitResult;
import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.DiffResult;
import org.agentworkspace.api.vcs.GitCredentials;
import org.agentworkspace.api.vcs.PullResult;
import org.agentworkspace.api.vcs.PushRequest;
import org.agentworkspace.api.vcs.PushResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.api.vcs.VcsStatus;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.secrets.GitTokens;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * Git on a project ({@code /api/git/*}; the project is the {@code project} query or body field). Everything goes
 * through the engine's VCS access (JGit, paths confined like the file API, names validated, remotes by configured
 * name only). Push and pull send the caller's stored git token (only to the configured credential origins).
 * Commits are authored by the caller's account: its user name, and its e-mail or
 * {@code <username>@agent-workspace.invalid}.
 */
public final class GitService extends ApiService {
    private final ProjectRegistry projects;
    private final GitTokens tokens;
    private final VcsOptions options;

    public GitService(ProjectRegistry projects, GitTokens tokens, VcsOptions options, Guard guard, RouteTable table) {
        super("git", guard, table);
        this.projects = projects;
        this.tokens = tokens;
        this.options = options;
    }

    @Override
    protected void declare(Routes r) {
        Access read = Access.scope(Scope.PROJECTS_READ);
        Access write = Access.scope(Scope.PROJECTS_WRITE);
        // on a shared store, served by a node whose roots hold the project's folder (docs/scale-out.md): the project
        // is the query's (reads) or the body's (changes)
        r.placed((call, nodes) -> nodes.projectFolder(call.query("project").orElseGet(() ->
                        call.request().prologue().method() != io.helidon.http.Method.GET
                                ? Call.optionalString(call.body(), "project").orElse(null) : null)))
                .get("/api/git/status", read, this::status)
                .get("/api/git/diff", read, this::diff)
                .get("/api/git/branches", read, this::branches)
                .get("/api/git/log", read, this::log)
                .post("/api/git/commit", write, this::commit)
                .post("/api/git/stage", write, this::stage)
                .post("/api/git/unstage", write, this::unstage)
                .post("/api/git/push", write, this::push)
                .post("/api/git/pull", write, this::pull)
                .post("/api/git/checkout", write, this::checkout);
    }

    private Vcs open(String project) {
        return projects.git(project, options);
    }

    private void status(Call call) {
        try (Vcs vcs = open(call.requiredQuery("project"))) {
            call.ok(Views.gitStatus(vcs.status()));
        }
    }

    private void diff(Call call) {
        String project = call.requiredQuery("project");
        boolean staged = call.booleanQuery("staged", false);
        RelativePath file = RelativePath.parse(call.query("file").orElse(""));
        try (Vcs vcs = open(project)) {
            DiffResult d = vcs.diff(DiffRequest.of(file, staged));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("diff", d.diff());
            m.put("truncated", d.truncated());
            call.ok(m);
        }
    }

    private void branches(Call call) {
        try (Vcs vcs = open(call.requiredQuery("project"))) {
            call.ok(Views.branches(vcs.branches()));
        }
    }

    /** {@code ?project&limit&cursor}: one page of HEAD's history, newest first. */
    private void log(Call call) {
        String project = call.requiredQuery("project");
        int limit = call.query("limit").map(v -> {
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                return -1;
            }
        }).orElse(CommitLog.DEFAULT_LIMIT);
        if (limit < 1 || limit > CommitLog.MAX_LIMIT) {
            throw WorkspaceException.Validation.of("limit must be 1-" + CommitLog.MAX_LIMIT);
        }
        String cursor = call.query("cursor").orElse(null);
        try (Vcs vcs = open(project)) {
            call.ok(Views.gitLog(vcs.log(cursor, limit)));
        }
    }

    private void commit(Call call) {
        JsonNode body = call.body();
        String project = Call.requiredString(body, "project");
        String message = Call.requiredString(body, "message");
        List<RelativePath> files = Call.optionalStrings(body, "files").orElse(List.of()).stream()
                .map(RelativePath::parse).toList();
        CommitIdentity author = identity(call.principal().user());
        try (Vcs vcs = open(project)) {
            CommitResult c = vcs.commit(new CommitRequest(message, files, author));
            call.ack("commit", c.commitId(), "branch", c.branch());
        } catch (WorkspaceException.Conflict e) {
            if (VcsErrorCodes.NOTHING_STAGED.equals(e.code())) {
                throw new WorkspaceException.Conflict(VcsErrorCodes.NOTHING_STAGED, e.getMessage()
                        + " (POST /api/git/stage with {project, files}, or POST /api/git/commit with files)");
            }
            throw e;
        }
    }

    /** {@code {project, files?}}: stages the named paths (none: every change), answers the new status. */
    private void stage(Call call) {
        changeIndex(call, Vcs::stage);
    }

    /** {@code {project, files?}}: unstages the named paths (none: the whole index), answers the new status. */
    private void unstage(Call call) {
        changeIndex(call, Vcs::unstage);
    }

    private void changeIndex(Call call,
                             java.util.function.BiFunction<Vcs, List<RelativePath>, VcsStatus> change) {
        JsonNode body = call.body();
        String project = Call.requiredString(body, "project");
        List<RelativePath> files = Call.optionalStrings(body, "files").orElse(List.of()).stream()
                .map(RelativePath::parse).toList();
        try (Vcs vcs = open(project)) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("success", true);
            m.putAll(Views.gitStatus(change.apply(vcs, files)));
            call.ok(m);
        }
    }

    private void push(Call call) {
        JsonNode body = call.body();
        String project = Call.requiredString(body, "project");
        String remote = Call.optionalString(body, "remote").orElse(PushRequest.DEFAULT_REMOTE);
        String branch = Call.optionalString(body, "branch").orElse(null);
        boolean force = Call.optionalBoolean(body, "force", false);
        GitCredentials credentials = credentials(call);
        try (Vcs vcs = open(project)) {
            PushResult p = vcs.push(new PushRequest(remote, branch, force), credentials);
            String output = p.upToDate() ? remote + " already has " + p.branch()
                    : "pushed " + p.branch() + " to " + p.remote() + (force ? " (forced with lease)" : "");
            call.ack("output", output, "remote", p.remote(), "branch", p.branch(), "upToDate", p.upToDate());
        }
    }

    private void pull(Call call) {
        String project = Call.requiredString(call.body(), "project");
        GitCredentials credentials = credentials(call);
        try (Vcs vcs = open(project)) {
            PullResult p = vcs.pull(credentials);
            String outcome = p.outcome().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
            String output = switch (p.outcome()) {
                case UP_TO_DATE -> "already up to date";
                case FAST_FORWARD -> "fast-forwarded to " + p.head().substring(0, 7);
                case MERGED -> "merged; HEAD is " + p.head().substring(0, 7);
                case REBASED -> "rebased; HEAD is " + p.head().substring(0, 7);
            };
            call.ack("output", output, "outcome", outcome, "head", p.head());
        }
    }

    private void checkout(Call call) {
        JsonNode body = call.body();
        String project = Call.requiredString(body, "project");
        String branch = Call.requiredString(body, "branch");
        try (Vcs vcs = open(project)) {
            CheckoutResult c = vcs.checkout(branch);
            call.ack("branch", c.branch(), "created", c.created(), "upstream", c.upstream());
        }
    }

    private GitCredentials credentials(Call call) {
        Optional<GitCredentials> c = tokens.credentials(call.principal().user().id());
        return c.orElse(null);
    }

    static CommitIdentity identity(User user) {
        String email = user.email();
        try {
            return new CommitIdentity(user.username(), email != null && !email.isBlank() ? email
                    : user.username() + "@agent-workspace.invalid");
        } catch (IllegalArgumentException e) {
            return new CommitIdentity(user.username(), user.username() + "@agent-workspace.invalid");
        }
    }
}
