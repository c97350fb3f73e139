package org.agentworkspace.core.runs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.core.json.JsonMappers;
import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;

/**
 * Where work runs (docs/scale-out.md "Where work runs"): the project roots and the address each node of a shared
 * store declared (migration {@code V022__node_roots.sql}, columns of {@code nodes}), and which node can serve a
 * folder. On SQLite (one node) every folder is this node's: {@link #place} always answers {@link Placement#local}.
 */
public final class NodeDirectory {
    /**
     * A node whose heartbeat is older than this is not chosen to serve a request (it may be stalled or dead; its runs
     * are fenced at the same age, {@link RunEngine}'s fencing). Shorter than the lease, after which it is settled.
     */
    public static final Duration SERVING_AGE = NodeLease.LEASE.dividedBy(2);

    private final Store store;
    private final String self;
    private final boolean shared;
    private final ObjectMapper mapper = JsonMappers.shared();
    private volatile List<Path> ownRoots = List.of();

    NodeDirectory(Store store, String self) {
        this.store = Objects.requireNonNull(store, "store");
        this.self = Objects.requireNonNull(self, "self");
        this.shared = store.dialect() == Dialect.POSTGRESQL;
    }

    /** The directory of the store's nodes, seen from node {@code self} (the engine's node id). */
    public static NodeDirectory of(Store store, String self) {
        return new NodeDirectory(store, self);
    }

    /** As {@link #of(Store, String)}, this node serving {@code roots} until {@link #publish} records its own. */
    public static NodeDirectory of(Store store, String self, List<Path> roots) {
        NodeDirectory d = new NodeDirectory(store, self);
        d.ownRoots = roots.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        return d;
    }

    /** One node as recorded in the store. */
    public record NodeInfo(String id, String host, String advertiseUrl, List<Path> roots, boolean runnerOnly,
                           boolean live, long heartbeatAgeMillis) {
        public NodeInfo {
            roots = List.copyOf(roots);
        }

        /** Whether one of this node's roots is {@code folder} or holds it. */
        public boolean serves(Path folder) {
            return NodeDirectory.within(folder, roots);
        }
    }

    /**
     * Which node serves a folder.
     *
     * @param local   this node declares it (or the store has one node only)
     * @param target  a live node that declares it (when not local), the one to forward to
     * @param holders the nodes that declare it, live or not (when neither local nor a live target: the folder is on
     *                nodes that are down; empty when no node declares it at all)
     */
    public record Placement(boolean local, Optional<NodeInfo> target, List<NodeInfo> holders) {
        static Placement here() {
            return new Placement(true, Optional.empty(), List.of());
        }

        /** Served here. */
        public boolean isLocal() {
            return local;
        }

        /** Declared by nodes none of which is live. */
        public boolean unavailable() {
            return !local && target.isEmpty() && !holders.isEmpty();
        }
    }

    /** Whether several nodes may serve this store (PostgreSQL); on SQLite every folder is this node's. */
    public boolean shared() {
        return shared;
    }

    /** This node's id. */
    public String selfId() {
        return self;
    }

    /**
     * Records this node's roots, the URL other nodes and clients reach it at, and whether it is a runner only.
     * Written to this node's row (registered by the engine at its open).
     */
    public void publish(String advertiseUrl, List<Path> roots, boolean runnerOnly) {
        List<Path> normal = roots.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        this.ownRoots = normal;
        String json;
        try {
            json = mapper.writeValueAsString(normal.stream().map(Path::toString).toList());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("roots cannot be written", e);
        }
        store.write(h -> h.createUpdate("UPDATE nodes SET advertise_url = :url, roots = :roots, runner_only = :runner "
                        + "WHERE id = :id")
                .bind("url", advertiseUrl).bind("roots", json).bind("runner", runnerOnly ? 1 : 0).bind("id", self)
                .execute());
    }

    /** Every node recorded in the store, with whether it is live now (the database's clock on PostgreSQL). */
    public List<NodeInfo> nodes() {
        String age = shared ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) - heartbeat_at"
                : ":now - heartbeat_at";
        return store.read(h -> {
            var q = h.createQuery("SELECT id, host, advertise_url, roots, runner_only, stopped_at, " + age
                    + " AS age FROM nodes ORDER BY id");
            if (!shared) {
                q.bind("now", System.currentTimeMillis());
            }
            return q.map((rs, ctx) -> {
                long ageMs = rs.getLong("age");
                boolean stopped = rs.getObject("stopped_at") != null;
                return new NodeInfo(rs.getString("id"), rs.getString("host"), rs.getString("advertise_url"),
                        roots(rs.getString("roots")), rs.getInt("runner_only") != 0,
                        !stopped && ageMs <= SERVING_AGE.toMillis(), ageMs);
            }).list();
        });
    }

    /**
     * Which node serves {@code folder}: this one when its own roots hold it (or the store is SQLite); else a live
     * node with an address whose roots hold it (the one with the freshest heartbeat); else the nodes that declare it
     * (none live), or none.
     */
    public Placement place(Path folder) {
        Path f = folder.toAbsolutePath().normalize();
        if (!shared || within(f, ownRoots)) {
            return Placement.here();
        }
        List<NodeInfo> holders = new ArrayList<>();
        NodeInfo best = null;
        for (NodeInfo n : nodes()) {
            if (n.id().equals(self) || !n.serves(f)) {
                continue;
            }
            holders.add(n);
            if (n.live() && n.advertiseUrl() != null
                    && (best == null || n.heartbeatAgeMillis() < best.heartbeatAgeMillis())) {
                best = n;
            }
        }
        return new Placement(false, Optional.ofNullable(best), List.copyOf(holders));
    }

    /** Whether {@code folder} is one of {@code roots} or lies below one (normalised paths, no link resolved). */
    public static boolean within(Path folder, List<Path> roots) {
        Path f = folder.toAbsolutePath().normalize();
        for (Path r : roots) {
            if (f.startsWith(r)) {
                return true;
            }
        }
        return false;
    }

    private List<Path> roots(String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        try {
            List<Path> out = new ArrayList<>();
            for (JsonNode n : mapper.readTree(json)) {
                if (n.isTextual() && Path.of(n.asText()).isAbsolute()) {
                    out.add(Path.of(n.asText()).normalize());
                }
            }
            return out;
        } catch (JsonProcessingException | RuntimeException e) {
            return List.of();
        }
    }
}
