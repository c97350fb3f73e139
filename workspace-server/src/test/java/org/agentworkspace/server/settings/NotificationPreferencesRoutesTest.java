package org.agentworkspace.server.settings;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.junit.jupiter.api.Test;

/** Notification preferences through the running server: defaults, a saved round trip, validation, who may write. */
class NotificationPreferencesRoutesTest {
    private static final String PATH = "/api/settings/notification-preferences";

    private static Map<String, Object> prefs(boolean inApp, boolean webPush, boolean action, boolean stop,
                                             boolean error) {
        return Map.of("channels", Map.of("inApp", inApp, "webPush", webPush),
                "events", Map.of("actionRequired", action, "stop", stop, "error", error));
    }

    @Test
    void defaultsThenASavedRoundTripPerUserThatSurvivesARestart() throws Exception {
        Map<String, Object> saved = prefs(false, true, true, false, true);
        java.nio.file.Path data;
        try (TestServer s = TestServer.start()) {
            data = s.dataDir;
            String admin = s.registerAdmin();
            JsonNode d = expect(s.get(PATH, bearer(admin)), 200, null).path("preferences");
            assertTrue(d.path("channels").path("inApp").asBoolean());
            assertFalse(d.path("channels").path("webPush").asBoolean());
            assertTrue(d.path("events").path("actionRequired").asBoolean());
            assertTrue(d.path("events").path("stop").asBoolean());
            assertTrue(d.path("events").path("error").asBoolean());

            JsonNode put = expect(s.put(PATH, saved, bearer(admin)), 200, null).path("preferences");
            assertFalse(put.path("channels").path("inApp").asBoolean());
            assertTrue(put.path("channels").path("webPush").asBoolean());
            assertFalse(put.path("events").path("stop").asBoolean());

            // another user still has the defaults
            expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)),
                    201, null);
            String bob = s.login("bob", "bob-password-1");
            assertTrue(expect(s.get(PATH, bearer(bob)), 200, null).path("preferences").path("channels")
                    .path("inApp").asBoolean());

            // keys read but do not write (session only)
            String key = s.createKey(admin, "reader", null)[1];
            JsonNode viaKey = expect(s.get(PATH, bearer(key)), 200, null).path("preferences");
            assertTrue(viaKey.path("channels").path("webPush").asBoolean());
            expect(s.put(PATH, prefs(true, true, true, true, true), bearer(key)), 403, "SESSION_REQUIRED");
            expect(s.get(PATH), 401, "AUTH_REQUIRED");
        }
        try (TestServer again = TestServer.wrap(WorkspaceServer.start(org.agentworkspace.server.TestServer.config(data),
                Map.of("HOME", data.resolveSibling("home").toString())), data)) {
            String admin = again.login(TestServer.ADMIN, TestServer.ADMIN_PASSWORD);
            JsonNode p = expect(again.get(PATH, bearer(admin)), 200, null).path("preferences");
            assertFalse(p.path("channels").path("inApp").asBoolean(), "saved preferences survive a restart");
            assertFalse(p.path("events").path("stop").asBoolean());
        }
    }

    @Test
    void incompleteOrMistypedPreferencesAreRefusedAndChangeNothing() {
        try (TestServer s = TestServer.start()) {
            String admin = s.registerAdmin();
            expect(s.put(PATH, prefs(false, false, false, false, false), bearer(admin)), 200, null);
            for (Object bad : new Object[] {
                    Map.of("channels", Map.of("inApp", true, "webPush", true)),
                    Map.of("channels", Map.of("inApp", "yes", "webPush", true),
                            "events", Map.of("actionRequired", true, "stop", true, "error", true)),
                    Map.of("channels", Map.of("inApp", true, "webPush", true),
                            "events", Map.of("actionRequired", true, "stop", true, "eror", true, "error", true)),
                    Map.of("channels", Map.of("inApp", true, "webPush", true), "events", Map.of("actionRequired",
                            true, "stop", true, "error", true), "extra", 1),
                    "[true]", "{\"channels\":"}) {
                JsonNode err = expect(s.put(PATH, bad, bearer(admin)), 400, null);
                assertEquals(false, err.path("success").asBoolean(true));
                assertFalse(err.path("error").path("message").asText().contains("Exception"), err.toString());
            }
            JsonNode p = expect(s.get(PATH, bearer(admin)), 200, null).path("preferences");
            assertFalse(p.path("channels").path("inApp").asBoolean(), "a refused write changed nothing");
            assertFalse(p.path("events").path("error").asBoolean());
        }
    }
}
