package org.agentworkspace.server.routes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.notifications.Notification;
import org.agentworkspace.core.notifications.NotificationErrorCodes;
import org.agentworkspace.core.notifications.Notifications;
import org.agentworkspace.core.notifications.WebPush;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;

/**
 * The caller's notifications ({@code /api/notifications}) and Web Push subscriptions
 * ({@code /api/notifications/web-push/*}); live delivery is the {@code notification} event of
 * {@code GET /api/events} (SystemService). Reading and marking read needs {@code tasks:read} (notifications are about
 * the caller's runs, which that scope reads); push subscriptions are session-only (a key must not be able to send
 * its owner's run summaries to a URL of its choosing). See docs/notifications.md.
 */
public final class NotificationsService extends ApiService {
    private static final int DEFAULT_LIMIT = 50;
    /** One test message per user in this many seconds: enough to try a device, too few to spam push services. */
    static final long TEST_INTERVAL_SECONDS = 10;
    private final java.util.concurrent.ConcurrentHashMap<Long, Long> lastTest = new java.util.concurrent.ConcurrentHashMap<>();
    private static final Set<String> SUBSCRIPTION_FIELDS = Set.of("endpoint", "expirationTime", "keys");

    private final Notifications notifications;

    public NotificationsService(Notifications notifications, Guard guard, RouteTable table) {
        super("notifications", guard, table);
        this.notifications = notifications;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/notifications", Access.scope(Scope.TASKS_READ), this::list)
                .post("/api/notifications/read-all", Access.scope(Scope.TASKS_READ), this::readAll)
                .post("/api/notifications/{notificationId}/read", Access.scope(Scope.TASKS_READ), this::read)
                .get("/api/notifications/web-push/public-key", Access.authenticated(), this::publicKey)
                .get("/api/notifications/web-push/subscriptions", Access.session(), this::subscriptions)
                .post("/api/notifications/web-push/subscriptions", Access.session(), this::subscribe)
                .delete("/api/notifications/web-push/subscriptions/{subscriptionId}", Access.session(),
                        this::unsubscribe)
                .post("/api/notifications/web-push/test", Access.session(), this::sendTest);
    }

    private void list(Call call) {
        long user = call.principal().user().id();
        int limit = call.query("limit").map(NotificationsService::limit).orElse(DEFAULT_LIMIT);
        boolean unreadOnly = call.booleanQuery("unread", false);
        List<Map<String, Object>> items = notifications.list(user, limit, unreadOnly).stream()
                .map(Notification::view).toList();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", true);
        body.put("notifications", items);
        body.put("unread", notifications.unreadCount(user));
        call.ok(body);
    }

    private static int limit(String raw) {
        try {
            int n = Integer.parseInt(raw.strip());
            if (n >= 1 && n <= Notifications.MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw WorkspaceException.Validation.of("limit must be a whole number from 1 to " + Notifications.MAX_LIMIT);
    }

    private void read(Call call) {
        Notification n = notifications.markRead(call.principal().user().id(), call.pathParam("notificationId"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", true);
        body.put("notification", n.view());
        call.ok(body);
    }

    private void readAll(Call call) {
        call.ack("marked", notifications.markAllRead(call.principal().user().id()));
    }

    private void publicKey(Call call) {
        call.ack("publicKey", notifications.webPush().publicKey());
    }

    private void subscriptions(Call call) {
        call.ack("subscriptions", notifications.webPush().subscriptions(call.principal().user().id()).stream()
                .map(NotificationsService::view).toList());
    }

    /** The browser's {@code PushSubscription.toJSON()}: {@code {endpoint, expirationTime?, keys: {p256dh, auth}}}. */
    private void subscribe(Call call) {
        JsonNode body = call.body();
        if (body == null || !body.isObject()) {
            throw WorkspaceException.Validation.of("the body must be a push subscription object");
        }
        body.fieldNames().forEachRemaining(f -> {
            if (!SUBSCRIPTION_FIELDS.contains(f)) {
                throw WorkspaceException.Validation.of("unknown field " + f.substring(0, Math.min(f.length(), 64)));
            }
        });
        JsonNode endpoint = body.get("endpoint");
        if (endpoint == null || !endpoint.isTextual()) {
            throw new WorkspaceException.Validation(NotificationErrorCodes.INVALID_PUSH_ENDPOINT,
                    "endpoint must be an https URL");
        }
        JsonNode exp = body.get("expirationTime");
        if (exp != null && !exp.isNull() && !exp.isNumber()) {
            throw WorkspaceException.Validation.of("expirationTime must be a number or null");
        }
        JsonNode keys = body.get("keys");
        if (keys == null || !keys.isObject() || !keys.path("p256dh").isTextual() || !keys.path("auth").isTextual()) {
            throw new WorkspaceException.Validation(NotificationErrorCodes.INVALID_PUSH_KEYS,
                    "keys must be an object with the strings p256dh and auth");
        }
        WebPush.Subscription s = notifications.webPush().subscribe(call.principal().user().id(), endpoint.asText(),
                keys.path("p256dh").asText(), keys.path("auth").asText());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("success", true);
        out.put("subscription", view(s));
        call.created(out);
    }

    private void unsubscribe(Call call) {
        notifications.webPush().unsubscribe(call.principal().user().id(), call.pathParam("subscriptionId"));
        call.ack();
    }

    /** No body: a test message to each of the caller's own subscriptions, at most one per user every 10 s. */
    private void sendTest(Call call) {
        long user = call.principal().user().id();
        long now = System.nanoTime();
        long interval = java.util.concurrent.TimeUnit.SECONDS.toNanos(TEST_INTERVAL_SECONDS);
        Long[] refused = {null};
        lastTest.compute(user, (k, last) -> {
            if (last != null && now - last < interval) {
                refused[0] = last;
                return last;
            }
            return now;
        });
        if (refused[0] != null) {
            long wait = java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(interval - (now - refused[0])) + 1;
            throw new WorkspaceException.RateLimited("a test message was sent moments ago; try again in " + wait
                    + " s", wait);
        }
        if (lastTest.size() > 10_000) {
            lastTest.entrySet().removeIf(e -> now - e.getValue() >= interval);
        }
        call.ack("sent", notifications.sendTestPush(user));
    }

    private static Map<String, Object> view(WebPush.Subscription s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.id());
        m.put("origin", s.origin());
        m.put("createdAt", s.createdAt().toString());
        return m;
    }
}
