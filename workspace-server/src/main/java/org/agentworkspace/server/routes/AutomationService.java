package org.agentworkspace.server.routes;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.agent.RunWorktrees;
import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.journal.JournalCursor;
import org.agentworkspace.core.journal.LastEventId;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunPage;
import org.agentworkspace.core.runs.RunRecord;
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
 * The maintained one-shot run: {@code POST /api/automation/run} queues a run and answers 202 at once; the run is
 * read back with {@code GET /api/automation/runs/{runId}} (status, agent, bounded logs, result), followed with its
 * SSE stream ({@code Last-Event-ID} / {@code afterSeq} resume, {@code streamTicket} for browsers) and cancelled with
 * {@code POST …/cancel}. Runs are visible to the user who started them and to administrators only.
 */
public final class AutomationService extends ApiService {
    private static final Pattern MARKER = Pattern.compile("^\\s*\\[agent:([A-Za-z0-9_-]{1,32})\\]\\s*");
    private static final int MAX_PROMPT_CHARS = 200_000;

    /** The response header that carries the next page's cursor (the body stays the array it always was). */
    static final String NEXT_CURSOR = "X-Next-Cursor";

    private final AgentRunService service;
    private final AgentRunService runs;
    private final ObjectMapper mapper = JsonMappers.shared();
    private final RunStreams streams;
    private final RunCallers callers;

    public AutomationService(AgentRunService service, ServerConfig config, ProjectRegistry projects, Guard guard,
                             RouteTable table) {
        super("automation", guard, table);
        this.service = service;
        AgentRunService runs = service;
        this.runs = runs;
        this.streams = new RunStreams(mapper, runs);
        this.callers = new RunCallers(runs, config, projects);
    }

    @Override
    protected void declare(Routes r) {
        // a registered project's run goes to a node whose roots hold its folder (docs/scale-out.md "Where work
        // runs"); a projectPath names a folder of the host the (local, trusted) caller is on: served here
        r.placed((call, nodes) -> Call.optionalString(call.body(), "projectPath").filter(s -> !s.isBlank()).isPresent()
                        ? Optional.empty()
                        : nodes.projectFolder(Call.optionalString(call.body(), "projectId").orElse(null)))
                .post("/api/automation/run", Access.scope(Scope.TASKS_WRITE), this::start);
        r.get("/api/automation/runs", Access.scope(Scope.TASKS_READ), this::list)
                .get("/api/automation/runs/{runId}", Access.scope(Scope.TASKS_READ), this::get)
                .get("/api/automation/runs/{runId}/events", Access.scope(Scope.TASKS_READ).stream(), this::events)
                .post("/api/automation/runs/{runId}/cancel", Access.scope(Scope.TASKS_WRITE), this::cancel)
                .post("/api/automation/runs/{runId}/merge", Access.scope(Scope.TASKS_WRITE), this::merge)
                .post("/api/automation/runs/{runId}/discard", Access.scope(Scope.TASKS_WRITE), this::discard);
    }

    private void start(Call call) {
        JsonNode body = call.body();
        String prompt = Call.requiredString(body, "prompt");
        Optional<String> agentType = Call.optionalString(body, "agentType").map(s -> s.strip()
                .toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty());
        Matcher m = MARKER.matcher(prompt);
        if (m.find()) {
            String marked = m.group(1).toLowerCase(Locale.ROOT);
            prompt = prompt.substring(m.end());
            if (agentType.isEmpty()) {
                agentType = Optional.of(marked);
            }
        }
        if (prompt.isBlank()) {
            throw WorkspaceException.Validation.of("prompt must not be blank");
        }
        if (prompt.length() > MAX_PROMPT_CHARS) {
            throw WorkspaceException.Validation.of("prompt is longer than " + MAX_PROMPT_CHARS + " characters");
        }
        String provider = service.provider(agentType.orElse(null));
        AgentRunService.Isolation isolation = AgentRunService.Isolation.parse(
                Call.optionalString(body, "isolation").orElse(null));
        service.checkIsolation(isolation);
        boolean keep = Call.optionalBoolean(body, "keepWorktree", false);
        Optional<String> projectId = Call.optionalString(body, "projectId").filter(s -> !s.isBlank());
        Optional<String> projectPath = Call.optionalString(body, "projectPath").filter(s -> !s.isBlank());
        String model = Call.optionalString(body, "model").filter(s -> !s.isBlank()).orElse(null);
        Path dir;
        if (projectPath.isPresent()) {
            dir = callers.projectPath(call, projectPath.get(), false);
        } else if (projectId.isPresent()) {
            dir = service.project(projectId.get());
        } else {
            throw WorkspaceException.Validation.of("projectId is required");
        }
        RunHandle handle = service.start(new AgentRunService.Start(call.principal().user().id(), "automation",
                provider, prompt, dir, projectId.orElse(null), null, model, null, null, Map.of()), isolation, keep);
        RunRecord run = service.find(call.principal().user(), handle.id());
        call.send(Status.ACCEPTED_202, view(run.info(), service.summary(run)));
    }

    /**
     * Newest first, filtered and paged in SQL (the caller's own runs, or every run for an administrator); each run's
     * outcome is stored in its row and its logs are read back from the end, so no run's log is replayed. The next
     * page's opaque cursor is in the {@value #NEXT_CURSOR} header (absent on the last page).
     */
    private void list(Call call) {
        int limit = call.query("limit").map(s -> {
            try {
                return Integer.parseInt(s);
            } catch (NumberFormatException e) {
                return -1;
            }
        }).orElse(50);
        if (limit < 1 || limit > 200) {
            throw WorkspaceException.Validation.of("limit must be 1-200");
        }
        RunPage.Query q = RunPage.Query.newest(limit);
        Optional<String> status = call.query("status");
        if (status.isPresent()) {
            q = q.withStatuses(EnumSet.of(parseStatus(status.get())));
        }
        Optional<String> projectId = call.query("projectId");
        if (projectId.isPresent()) {
            q = q.withProject(projectId.get());
        }
        Optional<String> taskId = call.query("taskId");
        if (taskId.isPresent()) {
            q = q.withTask(taskId.get());
        }
        Optional<String> cursor = call.query("cursor");
        if (cursor.isPresent()) {
            q = AgentRunService.after(q, cursor.get());
        }
        RunPage page = service.page(call.principal().user(), q);
        List<ObjectNode> out = new ArrayList<>(page.runs().size());
        for (RunRecord run : page.runs()) {
            out.add(view(run.info(), service.summary(run)));
        }
        if (page.nextCursor() != null) {
            call.response().header(HeaderNames.create(NEXT_CURSOR), page.nextCursor());
        }
        call.ok(out);
    }

    private static RunStatus parseStatus(String s) {
        if (s.equals("completed")) {
            return RunStatus.SUCCEEDED;
        }
        try {
            RunStatus st = RunStatus.ofWireName(s);
            if (st != RunStatus.SUCCEEDED) {
                return st;
            }
        } catch (IllegalArgumentException e) {
            // below
        }
        throw WorkspaceException.Validation.of("status must be one of queued, running, completed, failed, "
                + "cancelled, timed_out");
    }

    private RunInfo owned(Call call) {
        return service.find(call.principal().user(), call.pathParam("runId")).info();
    }

    private void get(Call call) {
        RunRecord run = service.find(call.principal().user(), call.pathParam("runId"));
        call.ok(view(run.info(), service.summary(run)));
    }

    private void cancel(Call call) throws InterruptedException {
        RunInfo info = service.cancel(call.principal().user(), call.pathParam("runId"),
                java.time.Duration.ofSeconds(30));
        call.ok(view(info, runs.summary(info)));
    }

    /** Merges an ended worktree run's branch into the project's checked-out branch (409 on conflict). */
    private void merge(Call call) {
        RunWorktrees.Merged m = service.mergeWorktree(call.principal().user(), call.pathParam("runId"));
        RunRecord run = service.find(call.principal().user(), call.pathParam("runId"));
        ObjectNode r = view(run.info(), service.summary(run));
        r.put("mergedInto", m.intoBranch());
        r.put("mergeCommit", m.mergeCommit());
        call.ok(r);
    }

    /** Deletes an ended worktree run's branch and worktree folder. */
    private void discard(Call call) {
        service.discardWorktree(call.principal().user(), call.pathParam("runId"));
        RunRecord run = service.find(call.principal().user(), call.pathParam("runId"));
        call.ok(view(run.info(), service.summary(run)));
    }

    /**
     * Follows a run: its stored entries after {@code Last-Event-ID} (the one rule, docs/live-channels.md), or, without
     * a header the rule accepts, after {@code ?afterSeq=} (default 0; not a whole number: 400), then live until the
     * run ends.
     */
    private void events(Call call) throws InterruptedException {
        RunInfo info = owned(call);
        EventJournal<RunEntry> journal = runs.journal(info.id());
        long fromHeader = LastEventId.resumeAfter(JournalStream.lastEventId(call), journal.newest(), -1);
        long after = fromHeader >= 0 ? fromHeader : afterSeq(call);
        StreamLimiter.Slot slot = follower().slot(call.principal());
        JournalCursor<RunEntry> cursor;
        try {
            cursor = journal.follow(after);
        } catch (RuntimeException e) {
            slot.close();
            throw e;
        }
        String provider = info.provider();
        follower().follow(call.principal(), slot, cursor, streams.frames(provider, new RunStreams.Frames() {
            @Override
            public void event(RunEntry entry, ObjectNode event, RunStreams.Out o) {
                o.emit(entry.seq(), "event", event);
            }

            @Override
            public void status(RunEntry entry, RunStatus status, JsonNode payload, RunStreams.Out o) {
                ObjectNode s = mapper.createObjectNode();
                s.put("runId", entry.runId());
                s.put("status", RunStreams.statusName(status));
                s.put("seq", entry.seq());
                s.put("at", entry.at().toString());
                if (payload.has("reason")) {
                    s.set("reason", payload.get("reason"));
                }
                o.emit(entry.seq(), "status", s);
                if (status.terminal()) {
                    RunInfo done = runs.info(entry.runId()).orElseThrow();
                    o.emit(entry.seq(), "done", view(done, runs.summary(done)));
                }
            }

            @Override
            public void log(RunEntry entry, ObjectNode line, RunStreams.Out o) {
                o.emit(entry.seq(), "log", line);
            }
        }), streams.sse(call.response()));
        // a client that went away: the run goes on and can be followed again
    }

    /** {@code ?afterSeq=}: a whole number from 0 (default 0); anything else is 400. */
    private static long afterSeq(Call call) {
        long after;
        try {
            after = Long.parseLong(call.query("afterSeq").orElse("0").strip());
        } catch (NumberFormatException e) {
            throw WorkspaceException.Validation.of("Last-Event-ID / afterSeq must be a sequence number");
        }
        if (after < 0) {
            throw WorkspaceException.Validation.of("Last-Event-ID / afterSeq must not be negative");
        }
        return after;
    }

    /** The {@code AutomationRun} record. */
    ObjectNode view(RunInfo info, RunSummary summary) {
        JsonNode meta = runs.metadata(info);
        ObjectNode r = mapper.createObjectNode();
        r.put("id", info.id());
        r.put("status", RunStreams.statusName(info.status()));
        r.put("agentType", info.provider());
        r.put("model", meta.path("model").asText(null));
        r.put("projectId", meta.path("projectId").asText(null));
        r.put("taskId", meta.path("taskId").asText(null));
        r.put("sessionId", summary.sessionId());
        Optional<RunWorktrees.Worktree> wt = service.worktrees().flatMap(w -> w.byRun(info.id()));
        r.put("isolation", wt.isPresent() ? "worktree" : "host");
        if (wt.isPresent()) {
            ObjectNode w = r.putObject("worktree");
            w.put("branch", wt.get().branch());
            w.put("path", wt.get().path());
            w.put("state", wt.get().state());
            w.put("keep", wt.get().keep());
            w.put("baseCommit", wt.get().baseCommit());
            w.put("headCommit", wt.get().headCommit());
            w.put("note", wt.get().note());
        } else {
            r.putNull("worktree");
        }
        if (info.exitCode() == null) {
            r.putNull("exitCode");
        } else {
            r.put("exitCode", info.exitCode());
        }
        r.put("createdAt", info.createdAt().toString());
        r.put("startedAt", info.startedAt() == null ? null : info.startedAt().toString());
        r.put("finishedAt", info.finishedAt() == null ? null : info.finishedAt().toString());
        ArrayNode logs = r.putArray("logs");
        for (RunSummary.LogLine l : summary.logs()) {
            ObjectNode n = logs.addObject();
            n.put("seq", l.seq());
            n.put("at", l.at().toString());
            n.put("stream", l.stream());
            n.put("text", l.text());
        }
        r.put("logsTruncated", summary.logsTruncated());
        r.put("lastSeq", summary.lastSeq());
        r.put("resultText", info.status().terminal() ? summary.text() : null);
        if (summary.usage() != null) {
            ObjectNode u = r.putObject("usage");
            u.put("input", summary.usage().input());
            u.put("output", summary.usage().output());
            u.put("total", summary.usage().total());
            if (summary.usage().cost() == null) {
                u.putNull("cost");
            } else {
                u.put("cost", summary.usage().cost());
            }
        }
        if (info.status().terminal() && info.status() != RunStatus.SUCCEEDED) {
            ObjectNode e = r.putObject("error");
            e.put("code", "RUN_" + info.status().name());
            // a run the engine stopped for its output says so, not what the cut-off CLI could not report
            boolean stoppedForOutput = info.findReason().filter(why -> why.startsWith("output limit:")).isPresent();
            e.put("message", summary.error() != null && !stoppedForOutput
                    ? summary.error().code() + ": " + summary.error().message()
                    : info.findReason().orElse("the run " + RunStreams.statusName(info.status())));
        } else {
            r.putNull("error");
        }
        return r;
    }
}
