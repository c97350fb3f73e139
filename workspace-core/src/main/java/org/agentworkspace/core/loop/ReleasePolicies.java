package org.agentworkspace.core.loop;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.core.json.JsonMappers;
import org.jdbi.v3.core.JdbiException;

/**
 * The stored desktop release policy (table {@code agent_loop_documents}, kind {@code release-policy}): read by
 * anyone the routes let in, replaced whole by an administrator. {@link #parse} checks every field and refuses
 * unknown ones, so a bad document never replaces a good one.
 */
public final class ReleasePolicies {
    static final String KIND = "release-policy";
    static final List<String> CHANNELS = List.of("stable", "beta", "nightly");
    static final List<String> DAYS = List.of("mon", "tue", "wed", "thu", "fri", "sat", "sun");
    private static final Pattern SEMVER = Pattern.compile("(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})\\."
            + "(0|[1-9][0-9]{0,8})");
    private static final Pattern HHMM = Pattern.compile("([01][0-9]|2[0-3]):[0-5][0-9]");
    private static final ObjectMapper JSON = JsonMappers.shared();

    private final Store store;
    private final Clock clock;

    public ReleasePolicies(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** The stored policy, or {@link ReleasePolicy#DEFAULT}. */
    public ReleasePolicy get() {
        try {
            Optional<Row> row = store.read(h -> h.createQuery("SELECT value, updated_at, updated_by FROM "
                    + "agent_loop_documents WHERE kind = :k").bind("k", KIND)
                    .map((rs, ctx) -> new Row(rs.getString(1), rs.getLong(2), rs.getString(3))).findOne());
            if (row.isEmpty()) {
                return ReleasePolicy.DEFAULT;
            }
            ReleasePolicy p = parse(JSON.readTree(row.get().value()));
            return new ReleasePolicy(p.channel(), p.autoUpdate(), p.minimumVersion(), p.rolloutPercent(),
                    p.maintenanceWindow(), Instant.ofEpochMilli(row.get().updatedAt()), row.get().updatedBy());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the stored release policy is not JSON", e);
        }
    }

    /** Replaces the policy (already validated by {@link #parse}). */
    public ReleasePolicy put(ReleasePolicy policy, String updatedBy) {
        long now = clock.millis();
        String value = toJson(policy).toString();
        try {
            store.write(h -> h.createUpdate("INSERT INTO agent_loop_documents (kind, value, updated_at, updated_by) "
                            + "VALUES (:k, :v, :at, :by) ON CONFLICT (kind) DO UPDATE SET value = excluded.value, "
                            + "updated_at = excluded.updated_at, updated_by = excluded.updated_by")
                    .bind("k", KIND).bind("v", value).bind("at", now).bind("by", updatedBy).execute());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        return get();
    }

    private record Row(String value, long updatedAt, String updatedBy) {
    }

    /** The policy fields as JSON (without updatedAt / updatedBy). */
    public static ObjectNode toJson(ReleasePolicy p) {
        ObjectNode n = JSON.createObjectNode();
        n.put("channel", p.channel());
        n.put("autoUpdate", p.autoUpdate());
        n.put("minimumVersion", p.minimumVersion());
        n.put("rolloutPercent", p.rolloutPercent());
        if (p.maintenanceWindow() == null) {
            n.putNull("maintenanceWindow");
        } else {
            ObjectNode w = n.putObject("maintenanceWindow");
            var days = w.putArray("days");
            p.maintenanceWindow().days().forEach(days::add);
            w.put("start", p.maintenanceWindow().start());
            w.put("durationMinutes", p.maintenanceWindow().durationMinutes());
            w.put("timezone", p.maintenanceWindow().timezone());
        }
        return n;
    }

    /**
     * Reads a whole policy: {@code channel} and {@code autoUpdate} are required; {@code minimumVersion} (default
     * null), {@code rolloutPercent} (default 100) and {@code maintenanceWindow} (default null) may be left out.
     *
     * @throws WorkspaceException.Validation {@code VALIDATION_FAILED} naming the first bad field
     */
    public static ReleasePolicy parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw invalid("the body must be a JSON object");
        }
        only(body, "", Set.of("channel", "autoUpdate", "minimumVersion", "rolloutPercent", "maintenanceWindow"));
        JsonNode channel = body.get("channel");
        if (channel == null || !channel.isTextual() || !CHANNELS.contains(channel.asText())) {
            throw invalid("channel must be one of " + String.join(", ", CHANNELS));
        }
        JsonNode auto = body.get("autoUpdate");
        if (auto == null || !auto.isBoolean()) {
            throw invalid("autoUpdate must be true or false");
        }
        String minimum = null;
        JsonNode min = body.get("minimumVersion");
        if (min != null && !min.isNull()) {
            if (!min.isTextual() || !SEMVER.matcher(min.asText()).matches()) {
                throw invalid("minimumVersion must be a version MAJOR.MINOR.PATCH such as 1.56.0, or null");
            }
            minimum = min.asText();
        }
        int rollout = 100;
        JsonNode r = body.get("rolloutPercent");
        if (r != null && !r.isNull()) {
            if (!r.isIntegralNumber() || r.asLong() < 0 || r.asLong() > 100) {
                throw invalid("rolloutPercent must be a whole number from 0 to 100");
            }
            rollout = r.asInt();
        }
        ReleasePolicy.MaintenanceWindow window = null;
        JsonNode w = body.get("maintenanceWindow");
        if (w != null && !w.isNull()) {
            window = window(w);
        }
        return new ReleasePolicy(channel.asText(), auto.asBoolean(), minimum, rollout, window, null, null);
    }

    private static ReleasePolicy.MaintenanceWindow window(JsonNode w) {
        if (!w.isObject()) {
            throw invalid("maintenanceWindow must be an object or null");
        }
        only(w, "maintenanceWindow.", Set.of("days", "start", "durationMinutes", "timezone"));
        JsonNode days = w.get("days");
        if (days == null || !days.isArray() || days.isEmpty()) {
            throw invalid("maintenanceWindow.days must list at least one of " + String.join(", ", DAYS));
        }
        Set<String> seen = new LinkedHashSet<>();
        for (JsonNode d : days) {
            if (!d.isTextual() || !DAYS.contains(d.asText())) {
                throw invalid("maintenanceWindow.days may hold only " + String.join(", ", DAYS));
            }
            if (!seen.add(d.asText())) {
                throw invalid("maintenanceWindow.days names " + d.asText() + " twice");
            }
        }
        List<String> ordered = new ArrayList<>(DAYS);
        ordered.retainAll(seen);
        JsonNode start = w.get("start");
        if (start == null || !start.isTextual() || !HHMM.matcher(start.asText()).matches()) {
            throw invalid("maintenanceWindow.start must be a time HH:MM such as 02:30");
        }
        JsonNode dur = w.get("durationMinutes");
        if (dur == null || !dur.isIntegralNumber() || dur.asLong() < 1 || dur.asLong() > 1440) {
            throw invalid("maintenanceWindow.durationMinutes must be a whole number from 1 to 1440");
        }
        JsonNode tz = w.get("timezone");
        if (tz == null || !tz.isTextual() || tz.asText().length() > 64) {
            throw invalid("maintenanceWindow.timezone must be a time zone id such as Europe/Berlin or UTC");
        }
        try {
            ZoneId.of(tz.asText());
        } catch (DateTimeException e) {
            throw invalid("maintenanceWindow.timezone must be a time zone id such as Europe/Berlin or UTC");
        }
        return new ReleasePolicy.MaintenanceWindow(ordered, start.asText(), dur.asInt(), tz.asText());
    }

    private static void only(JsonNode n, String prefix, Set<String> allowed) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) {
                throw invalid("unknown field " + prefix + f.substring(0, Math.min(64, f.length())));
            }
        }
    }

    private static WorkspaceException invalid(String message) {
        return WorkspaceException.Validation.of(message);
    }
}
