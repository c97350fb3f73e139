package org.agentworkspace.core.settings;

import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.core.json.JsonMappers;
import org.jdbi.v3.core.JdbiException;

/**
 * A user's non-secret settings (table {@code user_settings}): today the notification preferences. Each kind is one
 * JSON document per user, replaced whole in one statement; deleting the user deletes them.
 */
public final class UserSettings {
    static final String NOTIFICATIONS = "notification-preferences";
    private static final ObjectMapper JSON = JsonMappers.shared();

    private final Store store;
    private final Clock clock;

    private UserSettings(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    public static UserSettings create(Store store, Clock clock) {
        return new UserSettings(Objects.requireNonNull(store), Objects.requireNonNull(clock));
    }

    /** The user's notification preferences, {@link NotificationPreferences#DEFAULTS} until they save some. */
    public NotificationPreferences notifications(long userId) {
        return load(userId, NOTIFICATIONS).map(UserSettings::parseStored).orElse(NotificationPreferences.DEFAULTS);
    }

    /** Replaces the user's notification preferences. */
    public NotificationPreferences setNotifications(long userId, NotificationPreferences prefs) {
        save(userId, NOTIFICATIONS, toJson(prefs).toString());
        return prefs;
    }

    /**
     * Reads preferences from a request body {@code {channels:{inApp,webPush}, events:{actionRequired,stop,error}}}:
     * all five values are required booleans and nothing else is accepted ({@code VALIDATION_FAILED} otherwise, naming
     * the field), so a typo cannot silently switch a notification off.
     */
    public static NotificationPreferences parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw invalid("the body must be an object with channels and events");
        }
        onlyFields(body, "", "channels", "events");
        JsonNode channels = object(body, "channels");
        JsonNode events = object(body, "events");
        onlyFields(channels, "channels.", "inApp", "webPush");
        onlyFields(events, "events.", "actionRequired", "stop", "error");
        return new NotificationPreferences(flag(channels, "channels.", "inApp"), flag(channels, "channels.", "webPush"),
                flag(events, "events.", "actionRequired"), flag(events, "events.", "stop"),
                flag(events, "events.", "error"));
    }

    /** The JSON shape of {@link #parse}. */
    public static ObjectNode toJson(NotificationPreferences p) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode channels = root.putObject("channels");
        channels.put("inApp", p.inApp());
        channels.put("webPush", p.webPush());
        ObjectNode events = root.putObject("events");
        events.put("actionRequired", p.actionRequired());
        events.put("stop", p.stop());
        events.put("error", p.error());
        return root;
    }

    private static NotificationPreferences parseStored(String text) {
        try {
            return parse(JSON.readTree(text));
        } catch (JsonProcessingException | WorkspaceException e) {
            // a document this build cannot read (written by a newer one, or damaged): fall back, do not fail reads
            return NotificationPreferences.DEFAULTS;
        }
    }

    private static JsonNode object(JsonNode parent, String name) {
        JsonNode n = parent.get(name);
        if (n == null || !n.isObject()) {
            throw invalid(name + " must be an object");
        }
        return n;
    }

    private static boolean flag(JsonNode parent, String prefix, String name) {
        JsonNode n = parent.get(name);
        if (n == null || !n.isBoolean()) {
            throw invalid(prefix + name + " must be true or false");
        }
        return n.booleanValue();
    }

    private static void onlyFields(JsonNode node, String prefix, String... allowed) {
        var names = node.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (!java.util.List.of(allowed).contains(n)) {
                throw invalid("unknown field " + prefix + n.substring(0, Math.min(n.length(), 64)));
            }
        }
    }

    private static WorkspaceException invalid(String message) {
        return WorkspaceException.Validation.of(message);
    }

    private Optional<String> load(long userId, String kind) {
        try {
            return store.read(h -> h.createQuery("SELECT value FROM user_settings WHERE user_id = :u AND kind = :k")
                    .bind("u", userId).bind("k", kind).mapTo(String.class).findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private void save(long userId, String kind, String value) {
        long now = clock.millis();
        try {
            store.write(h -> h.createUpdate("INSERT INTO user_settings (user_id, kind, value, updated_at) "
                            + "VALUES (:u, :k, :v, :at) ON CONFLICT (user_id, kind) "
                            + "DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
                    .bind("u", userId).bind("k", kind).bind("v", value).bind("at", now).execute());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }
}
