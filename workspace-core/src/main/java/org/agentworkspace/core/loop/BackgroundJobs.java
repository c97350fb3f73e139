package org.agentworkspace.core.loop;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.index.IndexStatus;
import org.agentworkspace.core.providers.InstallJob;
import org.agentworkspace.core.providers.InstallJobs;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunOwner;
import org.agentworkspace.core.runs.RunRecord;
import org.agentworkspace.core.json.JsonMappers;

/**
 * What the engine is doing in the background, read from the components that do it: the run engine's queued and
 * running runs (one-shot automation runs, scheduled task runs, {@code /api/agent} and chat turns), the provider
 * install jobs it keeps (unfinished, and finished within their retention), and the history index. Runs and installs
 * can be cancelled (their process trees are killed); the history index cannot.
 */
public final class BackgroundJobs {
    static final String INSTALL_PREFIX = "install-";
    static final String HISTORY_INDEX = "history-index";
    private static final ObjectMapper JSON = JsonMappers.shared();

    private final RunEngine runs;
    private final InstallJobs installs;
    private final HistoryIndex history;

    public BackgroundJobs(RunEngine runs, InstallJobs installs, HistoryIndex history) {
        this.runs = runs;
        this.installs = installs;
        this.history = history;
    }

    /** Active jobs first (running, then queued, oldest first), then the finished ones newest first. */
    public List<BackgroundJob> list() {
        List<BackgroundJob> out = new ArrayList<>();
        for (String id : runs.activeIds()) {
            runs.record(id).filter(r -> !r.info().status().terminal()).map(BackgroundJobs::ofRun).ifPresent(out::add);
        }
        for (InstallJob j : installs.list()) {
            out.add(ofInstall(j));
        }
        out.add(ofIndex(history.status()));
        out.sort(Comparator.comparingInt((BackgroundJob j) -> rank(j.status()))
                .thenComparing((a, b) -> rank(a.status()) < 2
                        ? a.createdAt().compareTo(b.createdAt())
                        : b.createdAt().compareTo(a.createdAt()))
                .thenComparing(BackgroundJob::id));
        return out;
    }

    public Optional<BackgroundJob> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        if (id.equals(HISTORY_INDEX)) {
            return Optional.of(ofIndex(history.status()));
        }
        if (id.startsWith(INSTALL_PREFIX)) {
            String raw = id.substring(INSTALL_PREFIX.length());
            return installs.list().stream().filter(j -> j.jobId().equals(raw)).findFirst()
                    .map(BackgroundJobs::ofInstall);
        }
        if (id.startsWith("run_")) {
            return runs.record(id).map(BackgroundJobs::ofRun);
        }
        return Optional.empty();
    }

    /**
     * Cancels a job and returns it as it is afterwards: a run ends {@code cancelled} (its process tree is killed by
     * the engine in the background), an install is cancelled with npm's process tree killed before this returns. A
     * job that already ended is returned unchanged.
     *
     * @throws WorkspaceException.NotFound {@code JOB_NOT_FOUND}
     * @throws WorkspaceException.Conflict {@code JOB_NOT_CANCELLABLE} for the history index
     */
    public BackgroundJob cancel(String id) throws InterruptedException {
        BackgroundJob job = find(id).orElseThrow(() -> new WorkspaceException.NotFound(LoopErrorCodes.BACKGROUND_JOB_NOT_FOUND,
                "no such background job"));
        switch (job.kind()) {
            case "run" -> {
                if (runs.cancel(id)) {
                    runs.awaitCompletion(id, java.time.Duration.ofSeconds(15));
                }
            }
            case "provider-install" -> installs.cancel((String) job.details().get("provider"),
                    id.substring(INSTALL_PREFIX.length()));
            default -> throw new WorkspaceException.Conflict(LoopErrorCodes.BACKGROUND_JOB_NOT_CANCELLABLE,
                    "the history index cannot be cancelled; it stops with the service");
        }
        return find(id).orElse(job);
    }

    private static int rank(String status) {
        return switch (status) {
            case "running" -> 0;
            case "queued", "pending", "listing", "indexing" -> 1;
            default -> 2;
        };
    }

    /** A run as a job: who and where from its typed owner (the run row's columns), the plan id from its metadata. */
    private static BackgroundJob ofRun(RunRecord record) {
        RunInfo r = record.info();
        RunOwner owner = record.owner();
        JsonNode meta;
        try {
            meta = JSON.readTree(r.metadata());
        } catch (java.io.IOException e) {
            meta = JSON.createObjectNode();
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("provider", r.provider());
        String route = owner.origin();
        d.put("route", route);
        d.put("projectId", owner.project());
        d.put("taskId", owner.taskId());
        d.put("planId", text(meta, "planId"));
        d.put("userId", owner.accountId());
        if (r.exitCode() != null) {
            d.put("exitCode", r.exitCode());
        }
        if (r.reason() != null) {
            d.put("reason", r.reason());
        }
        String what = route == null ? "run" : switch (route) {
            case "task" -> "scheduled task run";
            case "automation" -> "automation run";
            case "agent" -> "agent run";
            case "ws" -> "chat turn";
            case CiRepairPlans.ROUTE -> "CI repair plan run";
            default -> "run";
        };
        String project = owner.project();
        return new BackgroundJob(r.id(), "run", r.provider() + " " + what + (project == null ? "" : " in " + project),
                statusName(r.status()), !r.status().terminal(), null, r.createdAt(), r.startedAt(), r.finishedAt(), d);
    }

    /** The run status as the automation routes name it ({@code completed} for a run that succeeded). */
    static String statusName(org.agentworkspace.core.runs.RunStatus s) {
        return s == org.agentworkspace.core.runs.RunStatus.SUCCEEDED ? "completed" : s.wireName();
    }

    private static BackgroundJob ofInstall(InstallJob j) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("provider", j.provider());
        d.put("npmPackage", j.npmPackage());
        d.put("requested", j.requested());
        if (j.installedVersion() != null) {
            d.put("installedVersion", j.installedVersion());
        }
        if (j.errorCode() != null) {
            d.put("errorCode", j.errorCode());
        }
        return new BackgroundJob(INSTALL_PREFIX + j.jobId(), "provider-install", "install " + j.provider() + " CLI ("
                + j.requested() + ")", j.status().wire(), !j.status().terminal(), null, j.startedAt(), j.startedAt(),
                j.finishedAt(), d);
    }

    private static BackgroundJob ofIndex(IndexStatus s) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("state", s.state());
        d.put("sessions", s.sessions());
        d.put("sessionsIndexed", s.sessionsIndexed());
        d.put("messages", s.messages());
        d.put("filesPending", s.filesPending());
        boolean ready = "ready".equals(s.state());
        boolean off = "off".equals(s.state());
        Double progress;
        if (off) {
            progress = null;
        } else if (s.sessions() == 0) {
            progress = ready ? 1.0 : null; // (not a conditional expression: its type would be double, null unboxed)
        } else {
            progress = Math.min(1.0, (double) s.sessionsIndexed() / s.sessions());
        }
        java.time.Instant created = s.startedAt() != null ? s.startedAt() : java.time.Instant.EPOCH;
        return new BackgroundJob(HISTORY_INDEX, "history-index", "conversation history index",
                off ? "off" : ready ? "ready" : "running", false, progress, created, s.startedAt(), s.readyAt(), d);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isTextual() ? v.asText() : null;
    }
}
