package org.agentworkspace.core.loop;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.providers.InstallJobs;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.core.json.JsonMappers;

/**
 * The production agent loop of one engine: {@link #jobs}, {@link #checkpoints}, {@link #reviews},
 * {@link #releasePolicy} and {@link #ciRepairPlans}. Built by {@code WorkspaceEngine}; the review queue observes the engine's runs from then on.
 */
public final class AgentLoop {
    private static final ObjectMapper JSON = JsonMappers.shared();

    private final RunEngine runs;
    private final BackgroundJobs jobs;
    private final Checkpoints checkpoints;
    private final ReviewQueue reviews;
    private final ReleasePolicies releasePolicy;
    private final CiRepairPlans ciRepairPlans;

    private AgentLoop(Store store, Clock clock, RunEngine runs, InstallJobs installs, HistoryIndex history,
                      ProjectRegistry projects, Optional<VcsFactory> git) {
        this.runs = runs;
        this.jobs = new BackgroundJobs(runs, installs, history);
        this.checkpoints = new Checkpoints(store, clock, projects, this::busy);
        this.reviews = new ReviewQueue(store, clock, git, this::busy);
        this.releasePolicy = new ReleasePolicies(store, clock);
        this.ciRepairPlans = new CiRepairPlans(store, clock);
    }

    /**
     * Creates the loop and starts observing runs; items a previous process left half-recorded are finished on a
     * background thread.
     */
    public static AgentLoop create(Store store, Clock clock, RunEngine runs, InstallJobs installs,
                                   HistoryIndex history, ProjectRegistry projects, Optional<VcsFactory> git) {
        AgentLoop loop = new AgentLoop(store, clock, runs, installs, history, projects, git);
        runs.observe(loop.reviews);
        // this node's cut-off runs were settled by the run engine's open; a run still unfinished is another node's
        Thread.ofVirtual().name("aw-review-recover").start(() -> loop.reviews.recover(
                id -> runs.find(id).map(r -> !r.status().terminal()).orElse(false)));
        return loop;
    }

    public BackgroundJobs jobs() {
        return jobs;
    }

    public Checkpoints checkpoints() {
        return checkpoints;
    }

    public ReviewQueue reviews() {
        return reviews;
    }

    public ReleasePolicies releasePolicy() {
        return releasePolicy;
    }

    public CiRepairPlans ciRepairPlans() {
        return ciRepairPlans;
    }

    /**
     * True when a run of this engine is queued or running in {@code dir}, in a folder inside it, or in a folder
     * that holds it.
     */
    boolean busy(Path dir) {
        Path want = WorkTreeLocks.real(dir);
        for (String id : runs.activeIds()) {
            var info = runs.find(id);
            if (info.isEmpty() || info.get().status().terminal()) {
                continue;
            }
            try {
                JsonNode meta = JSON.readTree(info.get().metadata());
                JsonNode p = meta.path("projectPath");
                if (p.isTextual()) {
                    Path runDir = WorkTreeLocks.real(Path.of(p.asText()));
                    if (runDir.startsWith(want) || want.startsWith(runDir)) {
                        return true;
                    }
                }
            } catch (IOException | RuntimeException e) {
                // unreadable metadata: not a run in this folder
            }
        }
        return false;
    }
}
