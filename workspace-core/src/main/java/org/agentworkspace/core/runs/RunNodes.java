package org.agentworkspace.core.runs;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

import org.agentworkspace.api.WorkspaceException;

/**
 * What a {@link RunEngine} does with the other nodes of a shared (PostgreSQL) store, apart from its queue: restart
 * recovery (its own unfinished runs, leftover processes of runs others settled), the sweep after each heartbeat that
 * settles the runs of dead nodes ({@code node_lost}) or takes over their queued runs ({@link RunTakeover}), and
 * requests for runs another node holds (a cancel, a stdin write: a stored request that node carries out). Split from
 * the engine to keep each class to one concern; it works on the engine's state under the engine's lock.
 * docs/scale-out.md "Ownership" and "Control from any node".
 */
final class RunNodes {
    private static final System.Logger LOG = System.getLogger(RunEngine.class.getName());

    private final RunEngine e;

    RunNodes(RunEngine engine) {
        this.e = engine;
    }

    /** {@link RunEngine#signal}: a {@code NOTIFY} to every node at the commit of a transaction of its own. */
    void signal(String topic) {
        if (!e.lease.shared()) {
            return;
        }
        e.store.write(h -> {
            try {
                RunWakeups.signal(h.getConnection(), e.store.dialect(), List.of("sig:" + topic));
            } catch (java.sql.SQLException x) {
                throw new IllegalStateException("the signal could not be sent", x);
            }
            return null;
        });
    }

    /** {@link RunEngine#withLaunchSpec}: the spec stored in the run's transaction on a shared store only. */
    WithRun withLaunchSpec(WithRun along, String spec) {
        if (!e.lease.shared() || spec == null) {
            return along;
        }
        return (h, runId) -> {
            if (along != null) {
                along.write(h, runId);
            }
            h.createUpdate("UPDATE runs SET launch_spec = :spec WHERE id = :id").bind("spec", spec)
                    .bind("id", runId).execute();
        };
    }

    /**
     * After each heartbeat: settles the runs of dead nodes, and fences this node when its own heartbeat has not
     * reached the store for half the lease (its runs are stopped before another node may settle them).
     */
    void afterBeat() {
        Duration since = e.lease.sinceLastBeat();
        if (since.compareTo(NodeLease.LEASE.dividedBy(2)) > 0 && !e.active.isEmpty()) {
            LOG.log(System.Logger.Level.ERROR, "this node's heartbeat has not reached the e.store for "
                    + since.toSeconds() + " s; stopping its " + e.active.size() + " runs before other nodes settle them");
            for (ActiveRun r : e.active.values()) {
                r.requestStop(new ActiveRun.Stop(RunStatus.FAILED, NodeLease.NODE_LOST));
            }
        }
        sweepLost(false);
        // a slot freed on another node whose notice was lost, or freed by a node's death
        e.admitSoon();
        e.openStreams.sweep();
    }

    /**
     * @param atOpen the sweep of {@link #open}: it runs before the service that rebuilds runs has registered its
     *               {@link RunTakeover}, so a queued run with a launch spec is left for the heartbeat's sweep (5 s
     *               later) rather than settled
     */
    int sweepLost(boolean atOpen) {
        if (!e.lease.shared()) {
            return 0;
        }
        int n = 0;
        for (String[] lost : e.lease.lostRuns()) {
            String runId = lost[0];
            String nodeId = lost[1];
            String host = e.lease.hostOf(nodeId);
            String notTaken = null;
            RunTakeover rebuild = e.takeover;
            boolean queued = RunStatus.QUEUED.wireName().equals(lost[2]);
            if (atOpen && rebuild == null && queued && e.log.launchSpec(runId) != null) {
                continue;
            }
            if (rebuild != null && queued) {
                String spec = e.log.launchSpec(runId);
                if (spec == null) {
                    notTaken = "it was queued without a launch spec, so no other node can start it";
                } else {
                    RunRequest request;
                    try {
                        request = rebuild.rebuild(runId, spec);
                    } catch (RuntimeException x) {
                        request = null;
                        notTaken = "node " + e.nodeId() + " could not start it: " + x.getMessage();
                    }
                    if (request != null) {
                        Taken taken = takeOver(runId, nodeId, host, request);
                        if (taken == Taken.BY_ANOTHER) {
                            continue; // another node took it, or it ended meanwhile
                        }
                        if (taken == Taken.HERE) {
                            n++;
                            continue;
                        }
                        notTaken = "node " + e.nodeId() + " is stopping";
                    }
                }
            }
            com.fasterxml.jackson.databind.node.ObjectNode status = e.json.object()
                    .put("status", RunStatus.FAILED.wireName()).put("reason", NodeLease.NODE_LOST)
                    .put("node", nodeId).put("host", host);
            if (notTaken != null) {
                status.put("detail", "not taken over: " + notTaken);
            }
            String payload = status.toString();
            if (e.log.settleLost(runId, nodeId, payload, e.clock.instant(), e.lease)) {
                n++;
                LOG.log(System.Logger.Level.WARNING, "run " + runId + " of node " + nodeId + " (" + host
                        + ") marked failed: that node sent no heartbeat for " + NodeLease.LEASE.toSeconds() + " s");
            }
        }
        return n;
    }

    /**
     * Takes over queued run {@code runId} of dead node {@code deadNode}: claims it in the store (one node wins), then
     * queues it here under the same id through the one queue and admission path of {@link RunEngine#start}.
     *
     * @return {@link Taken#HERE} when taken and queued here; {@link Taken#NOT_HERE} when this engine is closed (not
     *         claimed); {@link Taken#BY_ANOTHER} when another node took it or it is no longer queued
     */
    private Taken takeOver(String runId, String deadNode, String host, RunRequest request) {
        e.schedule.lock();
        try {
            if (e.closed) {
                return Taken.NOT_HERE;
            }
            Instant now = e.clock.instant().truncatedTo(ChronoUnit.MILLIS);
            String payload = e.json.object().put("status", RunStatus.QUEUED.wireName()).put("reason", RunEngine.TAKEN_OVER)
                    .put("from", deadNode).put("fromHost", host).put("node", e.nodeId()).toString();
            long seq = e.log.takeOver(runId, deadNode, e.nodeId(), payload, now, e.lease);
            if (seq < 0) {
                return Taken.BY_ANOTHER;
            }
            request.parser().bind(runId);
            RunOwner owner = request.owner() != null ? request.owner() : RunOwner.NONE;
            ActiveRun run = new ActiveRun(runId, request.withOwner(owner), seq + 1, e::ended);
            run.startsAt(seq);
            e.active.put(runId, run);
            run.committed(List.of(new RunEntry(runId, seq, EntryKind.STATUS, payload, now)), e.json);
            e.queue.add(run);
            e.queue.schedule();
            LOG.log(System.Logger.Level.WARNING, "run " + runId + " of node " + deadNode + " (" + host + "), "
                    + "queued when that node stopped sending heartbeats, taken over by this node");
            return Taken.HERE;
        } finally {
            e.schedule.unlock();
        }
    }

    private enum Taken { HERE, NOT_HERE, BY_ANOTHER }

    void recover() {
        if (e.lease.shared()) {
            // processes of this node's runs that other nodes settled while it was gone are still on this host
            int reaped = e.tree.killOrphans(new HashSet<>(e.log.settledAsLost(e.lease.id())), RunProcess.KILL_DEADLINE);
            if (reaped > 0) {
                LOG.log(System.Logger.Level.INFO, "killed " + reaped + " leftover processes of this node's runs "
                        + "that other nodes settled while it was gone");
            }
            sweepLost(true);
        }
        // one node (SQLite): every unfinished run was this engine's; several: only this node's and pre-V020 ones
        List<String> ids = e.lease.shared() ? e.log.unfinishedOf(e.lease.id()) : e.log.unfinished();
        if (ids.isEmpty()) {
            return;
        }
        int killed = e.tree.killOrphans(new HashSet<>(ids), RunProcess.KILL_DEADLINE);
        for (String id : ids) {
            Instant now = e.clock.instant();
            String payload = e.json.object().put("status", RunStatus.FAILED.wireName()).put("reason", RunEngine.RESTARTED)
                    .toString();
            e.log.endOrphan(id, RunStatus.FAILED, payload, RunEngine.RESTARTED, now);
        }
        LOG.log(System.Logger.Level.INFO, "marked " + ids.size() + " runs cut off by a restart as failed"
                + (killed > 0 ? "; killed " + killed + " of their processes that were still alive" : ""));
    }

    /**
     * A request for a run this engine does not hold: to the node that runs it. Empty when the run has ended, is
     * this node's own (it ended a moment ago), or its node is dead (its runs are settled here first); on SQLite
     * there is one node, so always empty.
     */
    Optional<String> remote(String runId, String kind, String payload) {
        Optional<String[]> owner = e.log.statusAndNode(runId);
        if (owner.isEmpty()) {
            throw RunEngine.notFound(runId);
        }
        String status = owner.get()[0];
        String node = owner.get()[1];
        if (!e.lease.shared() || RunStatus.ofWireName(status).terminal() || node == null || node.equals(e.lease.id())) {
            return Optional.empty();
        }
        Duration silent = e.lease.silence(node).orElse(NodeLease.LEASE.plusSeconds(1));
        if (silent.compareTo(NodeLease.LEASE) > 0) {
            // dead: its runs are settled now (the same conditional settle as the heartbeat's sweep)
            sweepLost(false);
            if (e.log.find(runId).map(i -> i.status().terminal()).orElse(true)) {
                return Optional.empty();
            }
        }
        if (silent.compareTo(RunRequests.SILENT) > 0) {
            throw nodeLost(node, silent);
        }
        Optional<RunRequests.Answer> a;
        try {
            a = e.requests.send(runId, node, kind, payload, RunEngine.REQUEST_WAIT);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new WorkspaceException.Unavailable(RunEngine.RUN_NODE_NOT_ANSWERING, "interrupted while waiting for the "
                    + "node running this run", x);
        }
        if (a.isEmpty()) {
            Duration now = e.lease.silence(node).orElse(NodeLease.LEASE.plusSeconds(1));
            if (now.compareTo(RunRequests.SILENT) > 0) {
                throw nodeLost(node, now);
            }
            throw new WorkspaceException.Unavailable(RunEngine.RUN_NODE_NOT_ANSWERING, "the node running this run (" + node
                    + " on " + e.lease.hostOf(node) + ") did not take the request within " + RunEngine.REQUEST_WAIT.toSeconds()
                    + " s; it was withdrawn and will not be carried out: try again", null);
        }
        if (!a.get().done()) {
            throw e.requests.refusal(a.get().result());
        }
        return Optional.ofNullable(a.get().result());
    }

    private WorkspaceException nodeLost(String node, Duration silent) {
        return new WorkspaceException.Unavailable(RunEngine.RUN_NODE_LOST, "the node running this run (" + node + " on "
                + e.lease.hostOf(node) + ") has sent no heartbeat for " + silent.toSeconds() + " s and cannot be "
                + "reached; the run will be marked failed (node_lost) once the node's " + NodeLease.LEASE.toSeconds()
                + " s e.lease has expired", null);
    }
}
