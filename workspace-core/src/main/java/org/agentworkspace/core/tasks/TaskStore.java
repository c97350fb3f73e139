package org.agentworkspace.core.tasks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;

import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Update;

/** Rows of {@code automation_tasks} and {@code automation_task_runs}. */
final class TaskStore {
    private static final String COLUMNS = "id, user_id, name, prompt, agent_type, model, project_id, schedule, status,"
            + " next_run_at, last_run_at, last_run_status, run_count, timeout_ms, active_run_id, created_at, updated_at, isolation";

    private final Store store;
    private final Duration minInterval;

    TaskStore(Store store, Duration minInterval) {
        this.store = store;
        this.minInterval = minInterval;
    }

    private RowMapper<AutomationTask> mapper() {
        return (rs, ctx) -> {
            Schedule schedule;
            try {
                // stored schedules were valid when written; a shorter minimum later must not make them unreadable
                schedule = Schedule.parse(Schedule.JSON.readTree(rs.getString("schedule")), Duration.ofSeconds(1));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("stored schedule of task " + rs.getString("id") + " is damaged", e);
            }
            long timeout = rs.getLong("timeout_ms");
            Long timeoutMs = rs.wasNull() ? null : timeout;
            return new AutomationTask(rs.getString("id"), rs.getLong("user_id"), rs.getString("name"),
                    rs.getString("prompt"), rs.getString("agent_type"), rs.getString("model"),
                    rs.getString("project_id"), schedule, TaskStatus.ofWireName(rs.getString("status")),
                    instant(rs.getObject("next_run_at")), instant(rs.getObject("last_run_at")),
                    rs.getString("last_run_status"), rs.getInt("run_count"), timeoutMs,
                    rs.getString("active_run_id"), Instant.ofEpochMilli(rs.getLong("created_at")),
                    Instant.ofEpochMilli(rs.getLong("updated_at")), rs.getString("isolation"));
        };
    }

    private static Instant instant(Object millis) {
        return millis == null ? null : Instant.ofEpochMilli(((Number) millis).longValue());
    }

    private static Long millis(Instant i) {
        return i == null ? null : i.toEpochMilli();
    }

    Duration minInterval() {
        return minInterval;
    }

    void insert(AutomationTask t) {
        write(h -> bindAll(h.createUpdate("INSERT INTO automation_tasks (" + COLUMNS + ") VALUES (:id, :user_id,"
                + " :name, :prompt, :agent_type, :model, :project_id, :schedule, :status, :next_run_at, :last_run_at,"
                + " :last_run_status, :run_count, :timeout_ms, :active_run_id, :created_at, :updated_at, :isolation)"), t)
                .execute());
    }

    void update(AutomationTask t) {
        write(h -> bindAll(h.createUpdate("UPDATE automation_tasks SET name = :name, prompt = :prompt,"
                + " agent_type = :agent_type, model = :model, project_id = :project_id, schedule = :schedule,"
                + " status = :status, next_run_at = :next_run_at, last_run_at = :last_run_at,"
                + " last_run_status = :last_run_status, run_count = :run_count, timeout_ms = :timeout_ms,"
                + " active_run_id = :active_run_id, updated_at = :updated_at, isolation = :isolation WHERE id = :id"), t).execute());
    }

    private static Update bindAll(Update u, AutomationTask t) {
        return u.bind("id", t.id()).bind("user_id", t.userId()).bind("name", t.name()).bind("prompt", t.prompt())
                .bind("agent_type", t.agentType()).bind("model", t.model()).bind("project_id", t.projectId())
                .bind("schedule", t.schedule().toJson().toString()).bind("status", t.status().wireName())
                .bind("next_run_at", millis(t.nextRunAt())).bind("last_run_at", millis(t.lastRunAt()))
                .bind("last_run_status", t.lastRunStatus()).bind("run_count", t.runCount())
                .bind("timeout_ms", t.timeoutMs()).bind("active_run_id", t.activeRunId())
                .bind("created_at", t.createdAt().toEpochMilli()).bind("updated_at", t.updatedAt().toEpochMilli())
                .bind("isolation", t.isolation());
    }

    /**
     * Claims one occurrence of a task for this node: the compare-and-set that makes a task fire once across nodes
     * sharing the store. Only the node whose update finds the row still {@code scheduled} at {@code due} gets 1;
     * every other node (or a second look of the same node) gets 0 and must not fire.
     */
    boolean claim(String id, Instant due, Instant shownNext, Instant now) {
        return write(h -> h.createUpdate("UPDATE automation_tasks SET status = 'running', next_run_at = :next,"
                        + " active_run_id = NULL, updated_at = :now"
                        + " WHERE id = :id AND status = 'scheduled' AND next_run_at = :due")
                .bind("id", id).bind("due", due.toEpochMilli()).bind("next", millis(shownNext))
                .bind("now", now.toEpochMilli()).execute()) == 1;
    }

    /** Gives a claimed occurrence back (no run was started): scheduled again at {@code due}. */
    void release(String id, Instant due) {
        write(h -> h.createUpdate("UPDATE automation_tasks SET status = 'scheduled', next_run_at = :due"
                        + " WHERE id = :id AND status = 'running' AND active_run_id IS NULL")
                .bind("id", id).bind("due", due.toEpochMilli()).execute());
    }

    /** Records the run a claimed occurrence started (the task may have been paused or cancelled meanwhile). */
    void started(String taskId, String runId, Instant now) {
        write(h -> {
            h.createUpdate("INSERT INTO automation_task_runs (task_id, run_id, started_at) VALUES (:t, :r, :at)")
                    .bind("t", taskId).bind("r", runId).bind("at", now.toEpochMilli()).execute();
            return h.createUpdate("UPDATE automation_tasks SET active_run_id = :r, run_count = run_count + 1,"
                            + " last_run_at = :now, updated_at = :now WHERE id = :t")
                    .bind("t", taskId).bind("r", runId).bind("now", now.toEpochMilli()).execute();
        });
    }

    /**
     * Writes {@code t} only if the row still has the status and active run it was read with: the end of a run
     * settled by two nodes (its own watcher and another node's sweep) is written once.
     */
    boolean updateIf(AutomationTask t, TaskStatus seenStatus, String seenRunId) {
        return write(h -> {
            Update u = bindAll(h.createUpdate("UPDATE automation_tasks SET name = :name, prompt = :prompt,"
                    + " agent_type = :agent_type, model = :model, project_id = :project_id, schedule = :schedule,"
                    + " status = :status, next_run_at = :next_run_at, last_run_at = :last_run_at,"
                    + " last_run_status = :last_run_status, run_count = :run_count, timeout_ms = :timeout_ms,"
                    + " active_run_id = :active_run_id, updated_at = :updated_at, isolation = :isolation"
                    + " WHERE id = :id AND status = :seen_status AND " + (seenRunId == null
                    ? "active_run_id IS NULL" : "active_run_id = :seen_run")), t)
                    .bind("seen_status", seenStatus.wireName());
            if (seenRunId != null) {
                u.bind("seen_run", seenRunId);
            }
            return u.execute();
        }) == 1;
    }

    Optional<AutomationTask> find(String id) {
        return read(h -> h.createQuery("SELECT " + COLUMNS + " FROM automation_tasks WHERE id = :id").bind("id", id)
                .map(mapper()).findOne());
    }

    /** Tasks of {@code userId} (all users when null), newest first, optionally of one project and status. */
    List<AutomationTask> list(Long userId, String projectId, TaskStatus status) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM automation_tasks WHERE 1 = 1");
        if (userId != null) {
            sql.append(" AND user_id = :u");
        }
        if (projectId != null) {
            sql.append(" AND project_id = :p");
        }
        if (status != null) {
            sql.append(" AND status = :s");
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT 1000");
        return read(h -> {
            var q = h.createQuery(sql.toString());
            if (userId != null) {
                q.bind("u", userId);
            }
            if (projectId != null) {
                q.bind("p", projectId);
            }
            if (status != null) {
                q.bind("s", status.wireName());
            }
            return q.map(mapper()).list();
        });
    }

    /** Scheduled tasks due at {@code now}, earliest first. */
    List<AutomationTask> due(Instant now, int limit) {
        return read(h -> h.createQuery("SELECT " + COLUMNS + " FROM automation_tasks WHERE status = 'scheduled'"
                        + " AND next_run_at IS NOT NULL AND next_run_at <= :now ORDER BY next_run_at LIMIT :n")
                .bind("now", now.toEpochMilli()).bind("n", limit).map(mapper()).list());
    }

    /** The earliest next run of any scheduled task. */
    Optional<Instant> earliest() {
        return read(h -> h.createQuery("SELECT MIN(next_run_at) FROM automation_tasks WHERE status = 'scheduled'")
                .mapTo(Long.class).findOne().map(Instant::ofEpochMilli));
    }

    List<AutomationTask> withStatus(TaskStatus status) {
        return read(h -> h.createQuery("SELECT " + COLUMNS + " FROM automation_tasks WHERE status = :s")
                .bind("s", status.wireName()).map(mapper()).list());
    }

    void delete(String id) {
        write(h -> {
            h.createUpdate("DELETE FROM automation_task_runs WHERE task_id = :id").bind("id", id).execute();
            return h.createUpdate("DELETE FROM automation_tasks WHERE id = :id").bind("id", id).execute();
        });
    }

    void linkRun(String taskId, String runId, Instant at) {
        write(h -> h.createUpdate("INSERT INTO automation_task_runs (task_id, run_id, started_at) VALUES (:t, :r, :at)")
                .bind("t", taskId).bind("r", runId).bind("at", at.toEpochMilli()).execute());
    }

    List<String> recentRuns(String taskId, int limit) {
        return read(h -> h.createQuery("SELECT run_id FROM automation_task_runs WHERE task_id = :t"
                        + " ORDER BY started_at DESC, run_id DESC LIMIT :n")
                .bind("t", taskId).bind("n", limit).mapTo(String.class).list());
    }

    private <R> R read(java.util.function.Function<Handle, R> work) {
        try {
            return store.read(work);
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private <R> R write(java.util.function.Function<Handle, R> work) {
        try {
            return store.write(work);
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }
}
