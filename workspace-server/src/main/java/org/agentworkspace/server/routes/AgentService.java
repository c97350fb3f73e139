package org.agentworkspace.server.routes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.agent.AgentErrorCodes;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.Repositories;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.index.HistoryErrorCodes;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.JournalStream;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.core.json.JsonMappers;
import org.agentworkspace.server.http.StreamLimiter;

/**
 * {@code POST /api/agent}: the legacy one-shot run for CI (API key only). Validates everything first (errors are
 * JSON envelopes), optionally clones {@code githubUrl}, runs the provider non-interactively, streams the run as
 * SSE or NDJSON (or buffers it), then optionally pushes a branch and opens a pull request, and removes a temporary
 * clone. A streaming client that goes away cancels the run. See docs/agent-runs.md.
 */
public final class AgentService extends ApiService {
    private static final System.Logger LOG = System.getLogger(AgentService.class.getName());
    private static final Duration BUFFERED_WAIT = Duration.ofHours(3);

    private final AgentRunService service;
    private final AgentRunService runs;
    private final Repositories repos;
    private final ObjectMapper mapper = JsonMappers.shared();
    private final RunStreams streams;
    private final LongFunction<Optional<String>> storedToken;
    private final RunCallers callers;

    /**
     * @param storedToken the user's stored git token (used when the request has no {@code githubToken})
     */
    public AgentService(AgentRunService service, Repositories repos, LongFunction<Optional<String>> storedToken,
                        ServerConfig config, ProjectRegistry projects, Guard guard, RouteTable table) {
        super("agent", guard, table);
        this.service = service;
        AgentRunService runs = service;
        this.runs = runs;
        this.repos = repos;
        this.storedToken = storedToken;
        this.streams = new RunStreams(mapper, runs);
        this.callers = new RunCallers(runs, config, projects);
    }

    @Override
    protected void declare(Routes r) {
        r.post("/api/agent", Access.apiKey(Scope.TASKS_WRITE), this::run);
    }

    /** The validated request. */
    private record Request(String message, String provider, String model, Path projectPath,
                           Optional<Repositories.RepositoryUrl> githubUrl, Optional<String> githubToken,
                           Optional<String> branchName, boolean createBranch, boolean createPr, String sessionId,
                           boolean stream, boolean cleanup) {
        Request withGithubToken(Optional<String> token) {
            return new Request(message, provider, model, projectPath, githubUrl, token, branchName, createBranch,
                    createPr, sessionId, stream, cleanup);
        }
    }

    private Request parse(Call call, JsonNode body) {
        String message = Call.requiredString(body, "message");
        if (message.isBlank()) {
            throw WorkspaceException.Validation.of("message must not be blank");
        }
        String provider = service.provider(Call.optionalString(body, "provider")
                .map(p -> p.strip().toLowerCase(Locale.ROOT)).orElse(null));
        Optional<String> path = Call.optionalString(body, "projectPath").filter(s -> !s.isBlank());
        Optional<String> url = Call.optionalString(body, "githubUrl").filter(s -> !s.isBlank());
        if (path.isEmpty() && url.isEmpty()) {
            throw WorkspaceException.Validation.of("projectPath or githubUrl is required");
        }
        Optional<Repositories.RepositoryUrl> repo = url.map(repos::validate);
        // the working directory follows the rules of POST /api/automation/run (RunCallers): local trusted callers
        // only, inside the project roots
        Path projectPath = path.map(p -> callers.projectPath(call, p, repo.isPresent())).orElse(null);
        Optional<String> branch = Call.optionalString(body, "branchName").filter(s -> !s.isBlank());
        branch.ifPresent(Repositories::validateBranchName);
        boolean createPr = bool(body, "createPR", false);
        boolean createBranch = branch.isPresent() || createPr || bool(body, "createBranch", false);
        String session = Call.optionalString(body, "sessionId").filter(s -> !s.isBlank()).orElse(null);
        if (session != null && !runs.supportsResume(provider)) {
            throw WorkspaceException.Validation.of(provider + " has no sessions to resume");
        }
        String model = Call.optionalString(body, "model").filter(s -> !s.isBlank()).orElse(null);
        return new Request(message, provider, model, projectPath, repo,
                Call.optionalString(body, "githubToken").filter(s -> !s.isBlank()), branch, createBranch, createPr,
                session, bool(body, "stream", true), bool(body, "cleanup", true));
    }

    /** A boolean field that also accepts the strings "true" and "false" (older CI scripts send them). */
    private static boolean bool(JsonNode body, String field, boolean dflt) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (v.isBoolean()) {
            return v.asBoolean();
        }
        if (v.isTextual() && (v.asText().equalsIgnoreCase("true") || v.asText().equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(v.asText().toLowerCase(Locale.ROOT));
        }
        throw WorkspaceException.Validation.of(field + " must be true or false");
    }

    private void run(Call call) throws Exception {
        Request parsed = parse(call, call.body());
        Principal principal = call.principal();
        if (parsed.sessionId() != null && !principal.user().admin()) {
            // a CLI session on this host is resumed only by the account whose run started or continued it
            if (!service.ownsSession(principal.user(), parsed.sessionId())) {
                throw new WorkspaceException.NotFound(HistoryErrorCodes.SESSION_NOT_FOUND,
                        "no session " + parsed.sessionId().replaceAll("\\p{Cntrl}", "?")
                                + " was started by your runs; resume only your own sessions");
            }
        }
        Request req = parsed.githubToken().isPresent() || !(parsed.githubUrl().isPresent() || parsed.createBranch())
                ? parsed : parsed.withGithubToken(storedToken.apply(principal.user().id()));
        boolean ndjson = prefersNdjson(call);
        // the answer stays open while the run lasts (streamed or buffered): it takes one of the account's stream
        // slots before anything starts, so a refusal (429 TOO_MANY_STREAMS) leaves no run and no clone behind
        org.agentworkspace.server.http.StreamLimiter.Slot slot = streams().acquire(principal);
        Repositories.Checkout checkout = null;
        Path project = req.projectPath();
        try {
            if (req.githubUrl().isPresent()) {
                checkout = repos.checkout(req.githubUrl().get(), req.projectPath(), req.githubToken());
                project = checkout.dir();
            }
        } catch (RuntimeException | Error e) {
            slot.close();
            throw e;
        }
        try (slot) {
            if ((req.createPr() || req.createBranch()) && !Repositories.isGitRepository(project)) {
                throw WorkspaceException.Validation.of("createBranch/createPR need a git repository");
            }
            if (req.createPr() && req.githubToken().isEmpty()) {
                throw new WorkspaceException.Validation(AgentErrorCodes.GIT_TOKEN_REQUIRED,
                        "createPR needs githubToken or a stored git token");
            }
            Map<String, Object> extra = new LinkedHashMap<>();
            req.githubUrl().ifPresent(u -> extra.put("githubUrl", u.display()));
            RunHandle handle = service.start(new AgentRunService.Start(principal.user().id(), "agent", req.provider(),
                    req.message(), project, null, null, req.model(), req.sessionId(), null, extra));
            if (req.stream()) {
                stream(call, slot, req, handle, project, ndjson);
            } else {
                RunInfo info = handle.awaitCompletion(BUFFERED_WAIT).orElseThrow(() ->
                        new WorkspaceException.Unavailable(ErrorCodes.INTERNAL_ERROR, "the run did not end", null));
                ObjectNode result = result(info, runs.summary(info), req, project);
                // remove the temporary clone before answering, so a client that sees the answer sees it gone
                if (checkout != null && req.cleanup()) {
                    Repositories.Checkout done = checkout;
                    checkout = null;
                    repos.cleanup(done);
                }
                call.send(Status.OK_200, result);
            }
        } finally {
            if (checkout != null && req.cleanup()) {
                repos.cleanup(checkout);
            }
        }
    }

    private static boolean prefersNdjson(Call call) {
        String accept = call.request().headers().first(HeaderNames.ACCEPT).orElse("").toLowerCase(Locale.ROOT);
        int nd = accept.indexOf("application/x-ndjson");
        if (nd < 0) {
            return false;
        }
        int sse = accept.indexOf("text/event-stream");
        return sse < 0 || nd < sse;
    }

    private void stream(Call call, StreamLimiter.Slot slot, Request req, RunHandle handle, Path project,
                        boolean ndjson) throws InterruptedException {
        JournalStream.Out out = ndjson ? streams.ndjson(call.response()) : streams.sse(call.response());
        JournalStream.End end = follower().follow(call.principal(), slot, handle.follow(0),
                streams.frames(req.provider(), new RunStreams.Frames() {
                    @Override
                    public void event(RunEntry entry, ObjectNode event, RunStreams.Out o) {
                        if ("session".equals(event.path("kind").asText())) {
                            ObjectNode s = mapper.createObjectNode();
                            s.put("sessionId", event.path("data").path("sessionId").asText());
                            s.put("provider", req.provider());
                            s.put("runId", entry.runId());
                            o.emit(entry.seq(), "session-created", s);
                        }
                        o.emit(entry.seq(), "event", event);
                    }

                    @Override
                    public void status(RunEntry entry, RunStatus status, JsonNode payload, RunStreams.Out o) {
                        if (!status.terminal()) {
                            return;
                        }
                        RunInfo info = handle.info();
                        RunSummary summary = runs.summary(info);
                        if (status == RunStatus.SUCCEEDED) {
                            o.emit(entry.seq(), "done", result(info, summary, req, project));
                        } else {
                            ObjectNode err = mapper.createObjectNode();
                            err.put("code", "RUN_" + status.name());
                            err.put("message", failure(info, summary));
                            o.emit(entry.seq(), "error", err);
                        }
                    }

                    @Override
                    public void log(RunEntry entry, ObjectNode line, RunStreams.Out o) {
                        // stderr stays in the run log; the legacy stream carries provider events only
                    }
                }), out);
        if (end == JournalStream.End.GONE) {
            // the client went away: a legacy run has no other reader, so stop it
            handle.cancel();
        }
    }

    private static String failure(RunInfo info, RunSummary summary) {
        if (summary.error() != null) {
            return summary.error().code() + ": " + summary.error().message();
        }
        return info.findReason().orElse("the run " + RunStreams.statusName(info.status()));
    }

    private ObjectNode result(RunInfo info, RunSummary summary, Request req, Path project) {
        ObjectNode r = mapper.createObjectNode();
        r.put("success", info.status() == RunStatus.SUCCEEDED && !Boolean.FALSE.equals(summary.success()));
        r.put("runId", info.id());
        r.put("status", RunStreams.statusName(info.status()));
        r.put("text", summary.text() == null ? "" : summary.text());
        r.put("sessionId", summary.sessionId());
        r.put("provider", req.provider());
        ObjectNode usage = r.putObject("usage");
        RunSummary.Usage u = summary.usage();
        usage.put("input", u == null ? 0 : u.input());
        usage.put("output", u == null ? 0 : u.output());
        usage.put("total", u == null ? 0 : u.total());
        if (u == null || u.cost() == null) {
            usage.putNull("cost");
        } else {
            usage.put("cost", u.cost());
        }
        if (summary.error() != null) {
            ObjectNode e = r.putObject("error");
            e.put("code", summary.error().code());
            e.put("message", summary.error().message());
        }
        r.putNull("branch");
        r.putNull("pullRequestUrl");
        if (info.status() == RunStatus.SUCCEEDED && req.createBranch()) {
            try {
                Repositories.Published pub = repos.publish(project, req.branchName(), req.message(),
                        req.githubToken(), req.createPr(), req.githubUrl());
                r.put("branch", pub.branch());
                pub.pullRequestUrl().ifPresent(url -> r.put("pullRequestUrl", url));
            } catch (WorkspaceException e) {
                ObjectNode ge = r.putObject("githubError");
                ge.put("code", e.code());
                ge.put("message", e.getMessage());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "publishing the branch of run " + info.id() + " failed: "
                        + e.getClass().getSimpleName());
                ObjectNode ge = r.putObject("githubError");
                ge.put("code", "GITHUB_FAILED");
                ge.put("message", "pushing the branch or opening the pull request failed");
            }
        }
        return r;
    }
}
